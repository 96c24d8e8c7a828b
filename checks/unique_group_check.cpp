//===- unique_group_check.cpp ---------------------------------------------===//
#include "checks/unique_group_check.h"
#include "kernels/moe/unique_group_indices.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const UniqueGroupCase &c) {
  return std::to_string(c.rows) + "x" + std::to_string(c.topk) + " groups=" + std::to_string(c.groups) + "/" +
         std::to_string(c.experts) + (c.edges ? " edges" : "");
}

CheckResult checkUniqueGroups(GpuSession *gpu, tk_context ctx, const UniqueGroupCase &c, bool time) {
  CheckResult r;
  const int64_t n = c.rows * c.topk, perGroup = c.experts / c.groups;
  std::vector<int64_t> ids(n), experts(c.experts);
  std::mt19937_64 rng(c.seed * 131 + c.experts + c.groups);
  for (int64_t row = 0; row < c.rows; ++row) {
    std::iota(experts.begin(), experts.end(), 0);
    for (int64_t s = 0; s < c.topk; ++s) { // K distinct experts (a partial shuffle)
      std::swap(experts[s], experts[s + rng() % (c.experts - s)]);
      int64_t v = rng() % 8 == 0 ? -1 : experts[s] / perGroup;
      if (c.edges && rng() % 6 == 0)
        v = rng() % 2 ? -5 : c.groups + (int64_t)(rng() % 3);
      ids[row * c.topk + s] = v;
    }
  }
  std::vector<int64_t> ref = ids, got(n);
  kernels::moe::uniqueGroupIndicesReference(ref.data(), c.rows, c.topk);
  int64_t changed = 0;
  for (int64_t i = 0; i < n; ++i)
    changed += ref[i] != ids[i];
  Placement p{gpu};
  std::vector<int64_t> work = ids;
  void *d = p.put(work.data(), n * 8);
  tk_tensor t = p.tensor(d, TK_I64, {c.rows, c.topk});
  auto call = [&] { return tk_inplace_unique_group_indices(ctx, &t, (int32_t)c.groups, nullptr); };
  if (!r.called(call()))
    return r;
  if (gpu)
    p.get(got.data(), d, n * 8);
  else
    got = work;
  for (int64_t i = 0; i < n; ++i)
    r.outMismatches += got[i] != ref[i];
  r.bytes = 8.0 * n + 4.0 * changed;
  if (gpu && time) // each timed call finds the ids already unique: the same work, no changes to write
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
