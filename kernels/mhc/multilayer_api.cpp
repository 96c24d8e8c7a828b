//===- multilayer_api.cpp - tk_mhc_multilayer_recompute (3.9) -------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/streams.h"
#include "kernels/mhc/views.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <algorithm>
#include <deque>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

namespace {
constexpr int64_t kMaxStreams = 8;
/// Layers per launch: their 1 + 2L + 4Lp 2-D tensors (56 bytes of launch
/// parameters each) within the 4 KB a launch may pass. A longer segment runs
/// as several launches, each starting from the residual the last one wrote.
constexpr int64_t kLayersPerLaunch = 10;
} // namespace

extern "C" tk_status tk_mhc_multilayer_recompute(tk_context ctx, const tk_tensor *initial_residual, int32_t num_layers,
                                                 const tk_tensor *pre_mix, int32_t num_post_layers,
                                                 const tk_tensor *layer_output, const tk_tensor *post_mix,
                                                 const tk_tensor *comb_mix, tk_tensor *layer_input, tk_tensor *residual,
                                                 tk_stream stream) {
  const char *op = "tk_mhc_multilayer_recompute";
  // The lists' elements are declared to the overlap check once their lengths are known to be sound (below).
  return tk::kernels::guardCall(
      op, {{"initial_residual", initial_residual}}, {}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.require(num_layers >= 1, "num_layers must be at least 1, got " + std::to_string(num_layers));
        args.require(num_post_layers == num_layers || num_post_layers == num_layers - 1,
                     "num_post_layers must be num_layers or num_layers - 1, got " + std::to_string(num_post_layers) +
                         " for " + std::to_string(num_layers) + " layers");
        args.require(!(num_layers > 0 && (!pre_mix || !layer_input)) &&
                         !(num_post_layers > 0 && (!layer_output || !post_mix || !comb_mix || !residual)),
                     "a list of num_layers or num_post_layers tensors is null");
        if (!args.ok())
          return tk::runtime::report(args.status());
        const int64_t layers = num_layers, posts = num_post_layers;
        args.tensor("initial_residual", initial_residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        // Each list element is checked under its own name ("pre_mix[3]").
        std::deque<std::string> names; // grows without moving: the checks below keep pointers to them
        std::vector<NamedTensor> inputs, outputs; // every element, for the overlap check
        auto each = [&](const char *list, const tk_tensor *ts, int64_t count, std::vector<Extent> shape, tk_dtype dtype,
                        bool output) {
          for (int64_t l = 0; l < count && args.ok(); ++l) {
            names.push_back(std::string(list) + "[" + std::to_string(l) + "]");
            args.tensor(names.back().c_str(), &ts[l], shape, {dtype}, Layout::Contiguous);
            (output ? outputs : inputs).push_back({names.back().c_str(), &ts[l]});
          }
        };
        each("pre_mix", pre_mix, layers, {"T", "n"}, TK_F32, false);
        each("layer_output", layer_output, posts, {"T", "H"}, TK_BF16, false);
        each("post_mix", post_mix, posts, {"T", "n"}, TK_F32, false);
        each("comb_mix", comb_mix, posts, {"T", "n", "n"}, TK_F32, false);
        each("layer_input", layer_input, layers, {"T", "H"}, TK_BF16, true);
        each("residual", residual, posts, {"T", "n", "H"}, TK_BF16, true);
        if (!args.ok())
          return tk::runtime::report(args.status());
        tk::runtime::CallTensors::declare(inputs, outputs);
        const int64_t t = args["T"], n = args["n"], h = args["H"];
        if (n < 1 || n > kMaxStreams)
          return tk::runtime::report(Status::unsupported(std::string(op) + ": n = " + std::to_string(n) +
                                                         " streams; 1 to " + std::to_string(kMaxStreams) +
                                                         " are supported"));
        if (t * n * h > std::numeric_limits<int32_t>::max() / 2 || n * h > std::numeric_limits<int32_t>::max())
          return tk::runtime::report(Status::unsupported(std::string(op) + ": T n H = " + std::to_string(t * n * h) +
                                                         " exceeds the kernel's i32 indices"));
        if (t == 0 || h == 0)
          return tk::runtime::report(Status::ok());
        // Every list's place checked before the first launch writes (a later launch's tensors included).
        std::vector<const tk_tensor *> all = {initial_residual};
        for (int64_t l = 0; l < layers; ++l)
          all.insert(all.end(), {&pre_mix[l], &layer_input[l]});
        for (int64_t l = 0; l < posts; ++l)
          all.insert(all.end(), {&layer_output[l], &post_mix[l], &comb_mix[l], &residual[l]});
        tk::compiler::Target target;
        if (Status s = ctx->targetFor(all, target); !s.isOk())
          return tk::runtime::report(s);
        for (int64_t first = 0; first < layers; first += kLayersPerLaunch) {
          const int64_t last = std::min(layers, first + kLayersPerLaunch), lastPost = std::min(last, posts);
          StreamConfig c{StreamOp::MultilayerRecompute};
          c.streams = n, c.hidden = h, c.layers = last - first, c.postLayers = lastPost - first;
          std::vector<tk_tensor> views; // every view first, so that the pointers below stay put
          views.reserve(1 + 2 * c.layers + 4 * c.postLayers);
          views.push_back(mergedLastTwo(first == 0 ? initial_residual : &residual[first - 1]));
          for (int64_t l = first; l < last; ++l)
            views.push_back(pre_mix[l]);
          for (int64_t l = first; l < lastPost; ++l)
            views.push_back(layer_output[l]);
          for (int64_t l = first; l < lastPost; ++l)
            views.push_back(post_mix[l]);
          for (int64_t l = first; l < lastPost; ++l)
            views.push_back(mergedLastTwo(&comb_mix[l]));
          for (int64_t l = first; l < last; ++l)
            views.push_back(layer_input[l]);
          for (int64_t l = first; l < lastPost; ++l)
            views.push_back(mergedLastTwo(&residual[l]));
          std::vector<const tk_tensor *> tensors;
          for (const tk_tensor &v : views)
            tensors.push_back(&v);
          if (Status s = runScheduled(ctx, streamSchedule(c.op), TK_PROGRAM(buildStreamKernel), c, tensors, stream);
              !s.isOk())
            return tk::runtime::report(s);
        }
        return tk::runtime::report(Status::ok());
      });
}

TK_REGISTER_OPERATORS(multilayer) {
  registerSchedule(streamSchedule(StreamOp::MultilayerRecompute));
  auto variant = [](int64_t h, int64_t layers, int64_t posts) {
    StreamConfig c{StreamOp::MultilayerRecompute};
    c.streams = 4, c.hidden = h, c.layers = layers, c.postLayers = posts;
    return KernelVariant{"mhc_multilayer_recompute.n4.h" + std::to_string(h) + ".l" + std::to_string(layers) + ".lp" +
                             std::to_string(posts),
                         scheduledFactory(streamSchedule(c.op), TK_PROGRAM(buildStreamKernel), c)};
  };
  registerOperator({"mhc_multilayer_recompute",
                    "mhc",
                    "tk_mhc_multilayer_recompute",
                    "a segment's layer inputs and residuals from its first residual: L x (apply, post) with the "
                    "streams kept in registers; bit-identical to calling the two per layer",
                    {variant(7168, 10, 9), variant(2560, 10, 10)}});
}
