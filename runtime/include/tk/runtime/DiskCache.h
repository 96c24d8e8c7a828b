//===- DiskCache.h - PTX kept across processes ----------------------------===//
//
// Compiled PTX is written to $TK_CACHE_DIR (default $XDG_CACHE_HOME/tk or
// ~/.cache/tk) under a stable hash of the JIT cache key, whose last part is
// the compiler's version and commit. Builds from a modified tree ("-dirty")
// do not use the disk: their key would not change with the code.
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

namespace tk::runtime {

class DiskCache {
public:
  /// The cache for this process's environment; disabled() when unusable.
  static DiskCache fromEnvironment();
  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }

  std::optional<std::string> read(const std::string &key) const;
  /// Best effort: a failed write leaves no partial file behind.
  void write(const std::string &key, const std::string &ptx) const;
  std::string pathFor(const std::string &key) const;

private:
  std::string dir_;
};

} // namespace tk::runtime
