//===- big_fuse_reference.cpp - 3.8 as the chain of references -------------===//
#include "kernels/mhc/big_fuse.h"
#include "kernels/mhc/mix_gates.h"
#include "kernels/mhc/norm_fn.h"
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/streams.h"

#include <vector>

namespace tk::kernels::mhc {

void bigFuseReference(const uint16_t *residual, const float *fn, const float *scale, const float *base, int64_t tokens,
                      int64_t n, int64_t h, float rmsEps, float preEps, float sinkhornEps, float postMult,
                      int64_t repeat, double *post, double *comb, uint16_t *layerInput) {
  const int64_t n3 = mixColumns(MixGateKind::Split, n), g = n * h;
  std::vector<double> mix(tokens * n3), mul(tokens * n3), ss(tokens);
  normFnForwardReference(residual, fn, nullptr, tokens, n3, g, rmsEps, mix.data(), mul.data(), ss.data());
  std::vector<float> mixF(mix.begin(), mix.end());
  std::vector<double> pre(tokens * n), logits(tokens * n * n);
  mixGateForwardReference(MixGateKind::Split, mixF.data(), tokens, n, scale, base, postMult, preEps,
                          {pre.data(), post, logits.data()});
  std::vector<float> logitsF(logits.begin(), logits.end()), preF(pre.begin(), pre.end());
  sinkhornForwardReference(logitsF.data(), tokens, n, repeat, sinkhornEps, comb);
  applyMixForwardReference(residual, preF.data(), tokens, n, h, layerInput);
}

} // namespace tk::kernels::mhc
