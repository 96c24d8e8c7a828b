//===- streams.cpp - the n-stream kernels' program, by op ------------------===//
#include "kernels/mhc/streams.h"

#include <stdexcept>

namespace tk::kernels::mhc {

dsl::BuiltKernel buildStreamKernel(mlir::MLIRContext &ctx, const StreamConfig &c) {
  if (c.streams < 1 || c.hidden < 1)
    throw std::invalid_argument(std::string(streamOpName(c.op)) + ": needs n >= 1 and H >= 1");
  switch (c.op) {
  case StreamOp::ExpandFwd:
  case StreamOp::ExpandBwd:
    return buildExpandKernel(ctx, c);
  case StreamOp::ApplyMixFwd:
  case StreamOp::ApplyMixBwd:
  case StreamOp::PreBigFuseApply:
    return buildApplyMixKernel(ctx, c);
  case StreamOp::MultilayerRecompute:
    return buildMultilayerKernel(ctx, c);
  case StreamOp::PostFwd:
  case StreamOp::PostBwd:
    return buildPostKernel(ctx, c);
  }
  throw std::invalid_argument("unknown mHC stream op");
}

} // namespace tk::kernels::mhc
