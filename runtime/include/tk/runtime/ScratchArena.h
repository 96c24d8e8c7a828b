//===- ScratchArena.h - the device blocks operators' scratch comes from ---===//
//
// A context's scratch buffers (Scratch.h) are blocks it allocates once with
// cuMemAlloc and reuses, in the order of the streams that use them: a call
// takes a free block, makes its stream wait for the event its last user
// recorded (nothing waits on the host), and records the event again when it
// is done. The stream-ordered allocator did the same work without events,
// but a process's first stream-ordered allocation costs 7-10 ms in the
// driver (an H200, any pool), which a first call of an operator with
// scratch paid; a cuMemAlloc in a context that has one is cheap. Blocks are
// kept until the context is destroyed, as the pool kept its memory.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/Driver.h"
#include "tk/runtime/Status.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace tk::runtime {

class ScratchArena {
public:
  struct Block {
    CUdeviceptr data = 0;
    size_t size = 0;
    CUevent released = nullptr; ///< recorded by the last user's stream
    CUstream stream = nullptr;  ///< that stream
    bool used = false;          ///< released has been recorded
    bool busy = false;          ///< held by a Scratch
  };
  ScratchArena() = default;
  ScratchArena(const ScratchArena &) = delete;
  ScratchArena &operator=(const ScratchArena &) = delete;
  /// A free block of at least `bytes` (the smallest last used on `stream`,
  /// else the smallest), `stream` made to wait for its last use; a new one
  /// (sizes in powers of two from 64 KiB) when none fits. No block is freed
  /// before the context is destroyed, even when an allocation fails.
  Status acquire(const Driver &driver, size_t bytes, CUstream stream, Block *&out);
  /// The block free again once `stream`'s work so far is done.
  void release(const Driver &driver, Block *block, CUstream stream);
  /// Frees every block (the caller's context current; waits for the device).
  void destroy(const Driver &driver);
  size_t blocks() const;

private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

} // namespace tk::runtime
