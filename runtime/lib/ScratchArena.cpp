//===- ScratchArena.cpp ---------------------------------------------------===//
#include "tk/runtime/ScratchArena.h"

#include <algorithm>

namespace tk::runtime {

namespace {
size_t blockSize(size_t bytes) {
  size_t size = 64 * 1024;
  while (size < bytes)
    size *= 2;
  return size;
}
} // namespace

Status ScratchArena::acquire(const Driver &d, size_t bytes, CUstream stream, Block *&out) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The smallest free block that fits, one last used on this stream first (no wait on another stream's work).
  Block *best = nullptr;
  auto better = [&](const Block &b) {
    if (!best)
      return true;
    const bool here = b.used && b.stream == stream, bestHere = best->used && best->stream == stream;
    return here != bestHere ? here : b.size < best->size;
  };
  for (const auto &b : blocks_)
    if (!b->busy && b->size >= bytes && better(*b))
      best = b.get();
  if (!best) {
    auto block = std::make_unique<Block>();
    block->size = blockSize(bytes);
    if (CUresult r = d.cuMemAlloc(&block->data, block->size))
      return {TK_ERROR_LAUNCH, d.describe("cuMemAlloc", r) + " (" + std::to_string(block->size) + " scratch bytes)"};
    if (CUresult r = d.cuEventCreate(&block->released, kEventDisableTiming)) { // ordering only
      d.cuMemFree(block->data);
      return {TK_ERROR_LAUNCH, d.describe("cuEventCreate", r)};
    }
    best = block.get();
    blocks_.push_back(std::move(block));
  } else if (best->used) {
    if (CUresult r = d.cuStreamWaitEvent(stream, best->released, 0))
      return {TK_ERROR_LAUNCH, d.describe("cuStreamWaitEvent", r)};
  }
  best->busy = true;
  out = best;
  return Status::ok();
}

void ScratchArena::release(const Driver &d, Block *block, CUstream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Recorded after the call's last use of the block in its stream; a later
  // user's stream waits for it. A failed record leaves the block out of use.
  if (d.cuEventRecord(block->released, stream) != 0)
    return;
  block->used = true;
  block->busy = false;
  block->stream = stream;
}

void ScratchArena::destroy(const Driver &d) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &b : blocks_) {
    if (b->used) // the last user's work done before its memory goes
      d.cuEventSynchronize(b->released);
    d.cuMemFree(b->data);
    d.cuEventDestroy(b->released);
  }
  blocks_.clear();
}

size_t ScratchArena::blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

} // namespace tk::runtime
