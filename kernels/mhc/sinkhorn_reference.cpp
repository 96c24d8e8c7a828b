//===- sinkhorn_reference.cpp - Sinkhorn-Knopp in fp64 (mhc_engram.md 3.4) ===//
#include "kernels/mhc/sinkhorn.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tk::kernels::mhc {

namespace {
/// One matrix's forward: the softmax S, and each step's input and
/// denominators (column steps sum over r, row steps over c).
struct Trace {
  std::vector<double> soft, out;
  std::vector<std::vector<double>> inputs, denominators;
  std::vector<bool> column;
};

Trace forward(const float *x, int64_t n, int64_t repeat, double eps) {
  Trace tr;
  tr.soft.resize(n * n);
  for (int64_t r = 0; r < n; ++r) {
    double top = -INFINITY, sum = 0;
    for (int64_t c = 0; c < n; ++c)
      top = std::max(top, (double)x[r * n + c]);
    for (int64_t c = 0; c < n; ++c)
      sum += tr.soft[r * n + c] = std::exp(x[r * n + c] - top);
    for (int64_t c = 0; c < n; ++c)
      tr.soft[r * n + c] /= sum;
  }
  std::vector<double> p(n * n);
  for (int64_t i = 0; i < n * n; ++i)
    p[i] = tr.soft[i] + eps;
  auto step = [&](bool column) {
    std::vector<double> d(n * n);
    for (int64_t a = 0; a < n; ++a) { // a: the column (column step) or the row (row step)
      double sum = 0;
      for (int64_t b = 0; b < n; ++b)
        sum += column ? p[b * n + a] : p[a * n + b];
      for (int64_t b = 0; b < n; ++b)
        d[column ? b * n + a : a * n + b] = sum + eps;
    }
    tr.inputs.push_back(p), tr.denominators.push_back(d), tr.column.push_back(column);
    for (int64_t i = 0; i < n * n; ++i)
      p[i] /= d[i];
  };
  step(true);
  for (int64_t r = 1; r < repeat; ++r)
    step(false), step(true);
  tr.out = p;
  return tr;
}
} // namespace

void sinkhornForwardReference(const float *x, int64_t matrices, int64_t n, int64_t repeat, float eps, double *out) {
  for (int64_t m = 0; m < matrices; ++m) {
    Trace tr = forward(x + m * n * n, n, repeat, eps);
    std::copy(tr.out.begin(), tr.out.end(), out + m * n * n);
  }
}

void sinkhornBackwardReference(const float *gradOut, const float *x, int64_t matrices, int64_t n, int64_t repeat,
                               float eps, double *gradX) {
  for (int64_t m = 0; m < matrices; ++m) {
    Trace tr = forward(x + m * n * n, n, repeat, eps);
    std::vector<double> g(gradOut + m * n * n, gradOut + (m + 1) * n * n);
    for (size_t s = tr.inputs.size(); s-- > 0;) {
      const std::vector<double> &in = tr.inputs[s], &d = tr.denominators[s];
      std::vector<double> dots(n * n);
      for (int64_t a = 0; a < n; ++a) {
        double sum = 0;
        for (int64_t b = 0; b < n; ++b) {
          const int64_t i = tr.column[s] ? b * n + a : a * n + b;
          sum += g[i] * in[i];
        }
        for (int64_t b = 0; b < n; ++b)
          dots[tr.column[s] ? b * n + a : a * n + b] = sum;
      }
      for (int64_t i = 0; i < n * n; ++i)
        g[i] = (g[i] - dots[i] / d[i]) / d[i];
    }
    for (int64_t r = 0; r < n; ++r) {
      double sum = 0;
      for (int64_t c = 0; c < n; ++c)
        sum += g[r * n + c] * tr.soft[r * n + c];
      for (int64_t c = 0; c < n; ++c)
        gradX[m * n * n + r * n + c] = (g[r * n + c] - sum) * tr.soft[r * n + c];
    }
  }
}

} // namespace tk::kernels::mhc
