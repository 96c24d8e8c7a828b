//===- views.h - the mHC entry points' tensor views -----------------------===//
#pragma once

#include "kernels/common/validate.h"
#include "tk/tk.h"

#include <cstdint>
#include <vector>

namespace tk::kernels::mhc {

/// A contiguous (T, a, b) tensor as (T, a b): comb's n x n matrices as rows
/// of n^2, the residual's n streams of H as rows of n H.
inline tk_tensor mergedLastTwo(const tk_tensor *t) {
  tk_tensor v = *t;
  v.ndim = 2;
  v.shape[1] = t->shape[1] * t->shape[2];
  v.strides[1] = 1;
  return v;
}

/// The elements of `t` from element `offset` on, seen with `shape` and
/// `strides` (in elements): e.g. one column group of a row of logits.
inline tk_tensor strided(const tk_tensor *t, int64_t offset, const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &strides) {
  tk_tensor v = *t;
  v.data = static_cast<char *>(t->data) + offset * elementBytes(t->dtype);
  v.ndim = (int32_t)shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    v.shape[i] = shape[i], v.strides[i] = strides[i];
  return v;
}

} // namespace tk::kernels::mhc
