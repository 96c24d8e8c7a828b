//===- DiskCache.h - PTX kept across processes ----------------------------===//
//
// Compiled PTX lives in $TK_CACHE_DIR (default $XDG_CACHE_HOME/tk or
// ~/.cache/tk), one file per content key (JitCache.h: a hash of the
// kernel's IR, target, options and compiler build id). Every entry carries
// its key, its length and a SHA-256 of its PTX; an entry that does not
// match them, or is not a regular file, is a miss, compiled again and
// replaced atomically (a temporary file renamed over it).
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

namespace tk::runtime {

class DiskCache {
public:
  /// The cache for this process's environment; disabled() when unusable.
  static DiskCache fromEnvironment();
  /// A cache in `dir` (created when missing); disabled when it cannot be.
  static DiskCache at(const std::string &dir);
  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }

  /// The PTX stored under `key`, when an intact entry is there.
  std::optional<std::string> read(const std::string &key) const;
  /// Best effort: a failed write leaves no partial file behind.
  void write(const std::string &key, const std::string &ptx) const;
  std::string pathFor(const std::string &key) const;

private:
  std::string dir_;
};

} // namespace tk::runtime
