//===- sinkhorn_api.cpp - tk_sinkhorn_normalize_fwd, _bwd (3.4) -----------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/sinkhorn.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <cmath>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

namespace {
// The backward keeps every step's input and denominators: 2 repeat - 1 steps
// of n^2 + n floats a matrix, in shared memory (rolled, the default) or in
// registers (unrolled): these bound the kernel's memory and registers.
constexpr int64_t kMaxN = 16, kMaxRepeat = 32;

tk_status run(const char *op, Arguments &args, tk_context ctx, bool backward, int32_t repeat, float eps,
              const std::vector<const tk_tensor *> &tensors, tk_stream stream) {
  args.require(repeat >= 1,
               "repeat must be at least 1, got " + std::to_string(repeat) +
                   " (with 0 the reference's forward still takes a column step its backward does not undo)");
  args.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative, got " + std::to_string(eps));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t m = args["M"], n = args["n"];
  if (n < 1 || n > kMaxN || repeat > kMaxRepeat)
    return tk::runtime::report(Status::unsupported(
        std::string(op) + ": n = " + std::to_string(n) + ", repeat = " + std::to_string(repeat) + "; n from 1 to " +
        std::to_string(kMaxN) + " and repeat up to " + std::to_string(kMaxRepeat) + " are supported"));
  if (m > std::numeric_limits<int32_t>::max())
    return tk::runtime::report(
        Status::unsupported(std::string(op) + ": " + std::to_string(m) + " matrices exceed the kernel's i32 rows"));
  if (m == 0)
    return tk::runtime::report(Status::ok());
  SinkhornConfig c;
  c.n = n, c.repeat = repeat, c.backward = backward;
  return tk::runtime::report(runScheduled(ctx, sinkhornSchedule(backward), TK_PROGRAM(buildSinkhorn), c, tensors,
                                          stream, {tk::runtime::f32Scalar(eps)}));
}
} // namespace

extern "C" tk_status tk_sinkhorn_normalize_fwd(tk_context ctx, const tk_tensor *x, int32_t repeat, float eps,
                                               tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_sinkhorn_normalize_fwd", {{"x", x}}, {{"out", out}}, [&] {
    Arguments args("tk_sinkhorn_normalize_fwd");
    args.require(ctx != nullptr, "ctx is null");
    args.tensor("x", x, {"M", "n", "n"}, {TK_F32}, Layout::Contiguous);
    args.tensor("out", out, {"M", "n", "n"}, {TK_F32}, Layout::Contiguous);
    return run("tk_sinkhorn_normalize_fwd", args, ctx, false, repeat, eps, {x, out}, stream);
  });
}

extern "C" tk_status tk_sinkhorn_normalize_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x,
                                               int32_t repeat, float eps, tk_tensor *grad_x, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_sinkhorn_normalize_bwd", {{"grad_out", grad_out}, {"x", x}}, {{"grad_x", grad_x}}, [&] {
        Arguments args("tk_sinkhorn_normalize_bwd");
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_out", grad_out, {"M", "n", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("x", x, {"M", "n", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_x", grad_x, {"M", "n", "n"}, {TK_F32}, Layout::Contiguous);
        return run("tk_sinkhorn_normalize_bwd", args, ctx, true, repeat, eps, {grad_out, x, grad_x}, stream);
      });
}

TK_REGISTER_OPERATORS(sinkhorn) {
  for (bool backward : {false, true}) {
    registerSchedule(sinkhornSchedule(backward));
    auto variant = [&](int64_t n, int64_t repeat) {
      SinkhornConfig c;
      c.n = n, c.repeat = repeat, c.backward = backward;
      const std::string name = backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd";
      return KernelVariant{name + ".n" + std::to_string(n) + ".r" + std::to_string(repeat),
                           scheduledFactory(sinkhornSchedule(backward), TK_PROGRAM(buildSinkhorn), c)};
    };
    registerOperator({backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd",
                      "mhc",
                      backward ? "tk_sinkhorn_normalize_bwd" : "tk_sinkhorn_normalize_fwd",
                      backward ? "Sinkhorn's gradient by recomputing the steps and their VJPs in reverse"
                               : "softmax, + eps, then repeat column and repeat - 1 row normalisations",
                      {variant(4, 10), variant(8, 3)}});
  }
}
