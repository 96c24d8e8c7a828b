//===- histogram_reference.cpp - the C++ reference ------------------------===//
#include "kernels/moe/histogram.h"

#include <algorithm>
#include <cstdint>

namespace tk::kernels::moe {

using namespace tk::dsl;

void groupCountReference(const int64_t *ids, int64_t n, int64_t groups, int32_t *counts) {
  std::fill(counts, counts + groups, 0);
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] >= 0 && ids[i] < groups)
      ++counts[ids[i]];
}

void auxFiReference(const int32_t *counts, int64_t experts, int64_t tokens, int64_t auxTopk, float *fi) {
  for (int64_t e = 0; e < experts; ++e) // no token: zeros (the spec's), not 0 / 0
    fi[e] = tokens == 0 ? 0.0f : (float)((int64_t)counts[e] * experts) / (float)(tokens * auxTopk);
}

} // namespace tk::kernels::moe
