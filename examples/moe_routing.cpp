// One MoE layer's routing through tk's C API (moe.md 5): topk_gate ->
// normalize_weight -> get_fused_mapping -> expand_to_fused -> a stand-in
// expert -> reduce_fused, checked step by step against the same composition
// of the C++ references (checks/moe_routing.cpp holds the calls). On the GPU
// when there is one, else on the CPU path.
//
//   build/bin/tk_example_moe_routing [tokens experts topk hidden alignment]
#include "checks/moe_routing.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  tk::checks::MoeRoutingCase c;
  if (argc == 6)
    c = {std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), std::atoll(argv[5])};
  else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [tokens experts topk hidden alignment]\n", argv[0]);
    return 2;
  }
  tk::checks::GpuSession gpu;
  tk_context ctx = nullptr;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk_context_create: %s\n", tk_last_error());
    return 1;
  }
  const tk::checks::MoeRoutingResult r = tk::checks::runMoeRouting(ctx, gpu.ok() ? &gpu : nullptr, c);
  tk_context_destroy(ctx);
  std::printf("MoE routing of %lld tokens x %lld slots over %lld experts (H = %lld, alignment %lld) on %s: ",
              (long long)c.tokens, (long long)c.topk, (long long)c.experts, (long long)c.hidden, (long long)c.alignment,
              gpu.ok() ? gpu.device().name.c_str() : "the CPU path");
  if (!r.error.empty()) {
    std::printf("failed: %s\n", r.error.c_str());
    return 1;
  }
  std::printf("%lld positions; %s\n", (long long)r.positions,
              r.mismatches ? ("DIFFERS from the references (" + std::to_string(r.mismatches) + " elements, first " +
                              r.firstMismatch + ")")
                                 .c_str()
                           : "every step bit-identical to the references");
  return r.ok() ? 0 : 1;
}
