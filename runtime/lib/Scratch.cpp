//===- Scratch.cpp --------------------------------------------------------===//
#include "tk/runtime/Scratch.h"
#include "tk/runtime/Context.h"

#include <algorithm>


namespace tk::runtime {

Scratch::~Scratch() {
  if (block_)
    ctx_->scratchArena.release(*ctx_->driver, block_, static_cast<CUstream>(stream_));
}

Status Scratch::allocateOnStream(tk_context_s *ctx, const tk_tensor &like, size_t bytes, tk_stream stream) {
  if (block_) // a second buffer from the same Scratch: the first goes back
    ctx_->scratchArena.release(*ctx_->driver, block_, static_cast<CUstream>(stream_));
  block_ = nullptr, data_ = nullptr, bytes_ = 0;
  ctx_ = ctx;
  onDevice_ = like.device == TK_DEVICE_CUDA;
  if (!onDevice_) {
    bytes_ = bytes;
    host_.assign(std::max<size_t>(bytes, 1), 0);
    data_ = host_.data();
    return Status::ok();
  }
  if (Status s = ctx->ensureDevice(); !s.isOk())
    return s;
  const Driver &d = *ctx->driver;
  // A block belongs to the context tk is bound to, and is reused by later calls in stream order: not from a
  // thread on another context, nor inside a stream capture (a graph would replay its address while the block
  // serves other calls).
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == 0 && current != ctx->device.context)
    return Status::invalid("scratch memory: the calling thread's current CUDA context is not the one this tk "
                           "context is bound to");
  int capture = kStreamCaptureStatusNone;
  if (CUresult r = d.cuStreamIsCapturing(static_cast<CUstream>(stream), &capture))
    return {TK_ERROR_LAUNCH, d.describe("cuStreamIsCapturing", r)};
  if (capture != kStreamCaptureStatusNone)
    return Status::unsupported("an operator that uses scratch memory cannot be captured into a CUDA graph (its "
                               "buffers are reused by later calls in stream order)");
  // Whole words (zeroOnStream).
  if (Status s = ctx->scratchArena.acquire(*ctx->driver, (std::max<size_t>(bytes, 4) + 3) / 4 * 4,
                                           static_cast<CUstream>(stream), block_);
      !s.isOk())
    return s;
  data_ = reinterpret_cast<void *>(block_->data);
  bytes_ = bytes;
  stream_ = stream;
  return Status::ok();
}

Status Scratch::zeroOnStream(tk_stream stream) {
  if (!onDevice_) {
    std::fill(host_.begin(), host_.end(), 0);
    return Status::ok();
  }
  // Whole words: the allocation is rounded up to them.
  const size_t words = (std::max<size_t>(bytes_, 4) + 3) / 4;
  const Driver &d = *ctx_->driver;
  if (CUresult r = d.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(data_), 0, words, static_cast<CUstream>(stream)))
    return {TK_ERROR_LAUNCH, d.describe("cuMemsetD32Async", r)};
  return Status::ok();
}

tk_tensor Scratch::tensor(tk_dtype dtype, int64_t rows, int64_t cols) const {
  tk_tensor t{};
  t.data = data_;
  t.dtype = dtype;
  t.ndim = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  t.device = onDevice_ ? TK_DEVICE_CUDA : TK_DEVICE_CPU;
  return t;
}

Status Scratch::inspect(tk_stream stream, const std::function<void(const void *)> &inspect) const {
  if (!onDevice_) {
    inspect(data_);
    return Status::ok();
  }
  // In the stream's order: a copy on the legacy default stream (cuMemcpyDtoH)
  // would also wait for every other blocking stream of the context.
  return ctx_->readBack(reinterpret_cast<CUdeviceptr>(data_), bytes_, stream, inspect);
}

} // namespace tk::runtime
