//===- mix_gates_reference.cpp - 3.3 and 3.6's math in fp64 ---------------===//
#include "kernels/mhc/mix_gates.h"

#include <cmath>

namespace tk::kernels::mhc {

namespace {
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
} // namespace

void mixGateForwardReference(MixGateKind kind, const float *input, int64_t tokens, int64_t n, const float *scale,
                             const float *base, float postMult, float preEps, const std::vector<double *> &outs) {
  const int64_t m = mixColumns(kind, n);
  const std::vector<MixGroup> groups = mixGroups(kind, n);
  for (int64_t t = 0; t < tokens; ++t)
    for (size_t g = 0; g < groups.size(); ++g)
      for (int64_t j = 0; j < groups[g].width; ++j) {
        const int64_t col = groups[g].offset + j;
        const double z = (double)input[t * m + col] * scale[g] + base[col];
        double &y = outs[g][t * groups[g].width + j];
        switch (groups[g].activation) {
        case MixGroup::Pre:
          y = sigmoid(z) + preEps;
          break;
        case MixGroup::Post:
          y = (double)postMult * sigmoid(z);
          break;
        case MixGroup::Comb:
          y = z;
          break;
        }
      }
}

void mixGateBackwardReference(MixGateKind kind, const std::vector<const float *> &grads, const float *input,
                              const float *post, int64_t tokens, int64_t n, const float *scale, const float *base,
                              float postMult, double *gradInput, double *gradScale, double *gradBase) {
  const int64_t m = mixColumns(kind, n);
  const std::vector<MixGroup> groups = mixGroups(kind, n);
  for (size_t g = 0; g < groups.size(); ++g)
    gradScale[g] = 0;
  for (int64_t j = 0; j < m; ++j)
    gradBase[j] = 0;
  for (int64_t t = 0; t < tokens; ++t)
    for (size_t g = 0; g < groups.size(); ++g)
      for (int64_t j = 0; j < groups[g].width; ++j) {
        const int64_t col = groups[g].offset + j, at = t * groups[g].width + j;
        const double u = input[t * m + col], grad = grads[g][at];
        double dz = grad;
        if (groups[g].activation == MixGroup::Pre) {
          const double s = sigmoid(u * scale[g] + base[col]);
          dz = grad * s * (1 - s);
        } else if (groups[g].activation == MixGroup::Post) {
          const double p = post[at];
          dz = grad * p * (1 - p / postMult);
        }
        gradInput[t * m + col] = dz * scale[g];
        gradBase[col] += dz;
        gradScale[g] += dz * u;
      }
}

} // namespace tk::kernels::mhc
