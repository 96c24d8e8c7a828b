//===- views.h - the mHC entry points' tensor views -----------------------===//
#pragma once

#include "tk/tk.h"

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

} // namespace tk::kernels::mhc
