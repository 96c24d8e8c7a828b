//===- DiskCache.h - PTX and cubins kept across processes -----------------===//
//
// Compiled PTX lives in $TK_CACHE_DIR (default $XDG_CACHE_HOME/tk or
// ~/.cache/tk), one file per content key (JitCache.h: a hash of the
// kernel's IR, target, options and compiler build id); beside it the cubin
// the driver made of it for one device architecture and driver version, so
// that a new process loads the kernel without the driver's JIT. Every entry
// carries its key, its length and a SHA-256 of its bytes; an entry that does
// not match them, or is not a regular file, is a miss, compiled again and
// replaced atomically (a temporary file renamed over it).
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tk::runtime {

/// SHA-256 of `bytes` as 64 hex digits: the cache's keys and entry digests
/// (Sha256.cpp: the runtime's own, no LLVM).
std::string sha256Hex(const std::string &bytes);

class DiskCache {
public:
  /// PTX by content key; the cubin of a content key for a device; the
  /// index entry naming a program's kernel (KernelIndex.h).
  enum class Kind { Ptx, Cubin, Index };
  /// The cache for this process's environment; disabled() when unusable.
  static DiskCache fromEnvironment();
  /// A cache in `dir` (created when missing); disabled when it cannot be.
  static DiskCache at(const std::string &dir);
  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }

  /// The bytes stored under `key`, when an intact entry is there.
  std::optional<std::string> read(const std::string &key, Kind kind = Kind::Ptx) const;
  /// Best effort: a failed write leaves no partial file behind.
  void write(const std::string &key, const std::string &bytes, Kind kind = Kind::Ptx) const;
  /// `key`: a content key for PTX; for a cubin, a content key followed by
  /// its architecture's tag (aotCubinKey()).
  std::string pathFor(const std::string &key, Kind kind = Kind::Ptx) const;
  /// The keys of the intact entries of `kind` (for `tk bundle`), sorted.
  std::vector<std::string> keys(Kind kind) const;

private:
  std::string dir_;
};

} // namespace tk::runtime
