//===- Scratch.h - per-call buffers an operator reads back ----------------===//
//
// Some operators report facts only the kernel sees (e.g. an input that
// violates a precondition). The kernel writes them into a scratch buffer;
// the entry point waits for the stream and reads them back. Others pass
// intermediate results from one of their kernels to the next. Either way the
// buffer is a block of the context's arena (ScratchArena.h), taken and given
// back in the order of the call's stream: nothing waits for the device, so
// only a read-back waits. The buffer lives on the device of the call's
// tensors, or in host memory for the CPU path (which runs as it is called).
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/ScratchArena.h"
#include "tk/runtime/Status.h"
#include "tk/tk.h"

#include <cstddef>
#include <functional>
#include <vector>

struct tk_context_s;

namespace tk::runtime {

class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch();
  /// `bytes` of memory where `like` lives (device or host), contents
  /// undefined; on the device a block of the context's arena, taken in
  /// `stream`'s order and given back in it when the Scratch goes out of
  /// scope: kernels launched on `stream` in between may use it, and nothing
  /// waits for them.
  Status allocateOnStream(tk_context_s *ctx, const tk_tensor &like, size_t bytes, tk_stream stream);
  /// Sets every byte of the buffer to zero, in `stream`'s order.
  Status zeroOnStream(tk_stream stream);
  /// A 2-D tensor over the buffer, row-major, in `like`'s memory.
  tk_tensor tensor(tk_dtype dtype, int64_t rows, int64_t cols) const;
  /// Waits for the buffer's contents in `stream`'s order and hands them
  /// (size() bytes) to `inspect`, which must not keep the pointer: on the
  /// device they arrive in the context's page-locked read-back buffer and
  /// are looked at there, with no further copy.
  Status inspect(tk_stream stream, const std::function<void(const void *)> &inspect) const;
  size_t size() const { return bytes_; }

private:
  tk_context_s *ctx_ = nullptr;
  bool onDevice_ = false;
  tk_stream stream_ = nullptr;
  void *data_ = nullptr;
  ScratchArena::Block *block_ = nullptr;
  std::vector<unsigned char> host_;
  size_t bytes_ = 0;
};

} // namespace tk::runtime
