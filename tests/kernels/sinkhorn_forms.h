// sinkhorn_normalize's two forms (schedule field `rolled`): the steps
// unrolled and as a loop over the repeat count, the backward's snapshots in
// shared memory. They run the same ops in the same order, so at the same
// tile a call's output must be the same bits under either; on the GPU of
// `gpu` or the CPU path.
#pragma once

#include "checks/gpu_session.h"
#include "checks/sinkhorn_check.h"
#include "kernels/mhc/sinkhorn.h"
#include "tests/kernels/random_values.h"
#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tk::test {

/// The output of one call on randn inputs (seeded by the case) under TK_SCHEDULE `schedule`.
inline std::vector<float> sinkhornOutput(checks::GpuSession *gpu, const std::string &schedule,
                                         const checks::SinkhornCase &c) {
  const int64_t m = c.matrices, n = c.n, count = std::max<int64_t>(1, m * n * n);
  std::vector<float> x = randn(count, uint32_t(c.seed * 31 + n)), g = randn(count, uint32_t(c.seed * 37 + n));
  std::vector<float> out(count, -1.0f);
  checks::Placement p{gpu};
  tk_tensor tx = p.tensor(p.put(x.data(), count * 4), TK_F32, {m, n, n}),
            tg = p.tensor(p.put(g.data(), count * 4), TK_F32, {m, n, n});
  void *placed = p.poisoned(out.data(), count * 4, 0xff);
  tk_tensor to = p.tensor(placed, TK_F32, {m, n, n});
  ScheduledContext ctx(schedule);
  const tk_status s = c.backward ? tk_sinkhorn_normalize_bwd(ctx, &tg, &tx, (int32_t)c.repeat, 1e-6f, &to, nullptr)
                                 : tk_sinkhorn_normalize_fwd(ctx, &tx, (int32_t)c.repeat, 1e-6f, &to, nullptr);
  EXPECT_EQ(s, TK_SUCCESS) << schedule << " " << checks::describe(c) << ": " << tk_last_error();
  p.get(out.data(), placed, count * 4);
  return out;
}

/// Every case's output rolled and unrolled at the same tile, bit for bit: at `tile` ("rows=8,threads=64") when
/// given, else at both forms' default tiles (the sums' order follows the tile's layout, so only the same tile
/// promises the same bits: the rolled backward's default, 4 x 4 matrices 8 to a warp, and the unrolled 32 on 128
/// threads group the sums of n > 4 differently).
inline void expectRolledGivesTheUnrolledBits(checks::GpuSession *gpu, const std::vector<checks::SinkhornCase> &cases,
                                             const std::string &tile = "") {
  for (const checks::SinkhornCase &c : cases) {
    const std::string op = c.backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd";
    std::vector<std::string> tiles = {tile};
    if (tile.empty()) {
      tiles.clear();
      for (int64_t rolled : {1, 0}) {
        kernels::mhc::SinkhornConfig d;
        d.n = c.n, d.repeat = c.repeat, d.backward = c.backward, d.rolled = rolled;
        const std::string t = "rows=" + std::to_string(d.numRows()) + ",threads=" + std::to_string(d.numThreads());
        if (tiles.empty() || tiles[0] != t)
          tiles.push_back(t);
      }
    }
    for (const std::string &t : tiles) {
      std::vector<float> unrolled = sinkhornOutput(gpu, op + ":rolled=0," + t, c),
                         rolled = sinkhornOutput(gpu, op + ":rolled=1," + t, c);
      ASSERT_EQ(unrolled.size(), rolled.size());
      int64_t differ = 0;
      for (size_t i = 0; i < rolled.size(); ++i)
        differ += std::memcmp(&rolled[i], &unrolled[i], 4) != 0;
      EXPECT_EQ(differ, 0) << op << " " << checks::describe(c) << " " << t << ": elements that differ";
    }
  }
}

/// n and repeat where the forms differ most: one step (no loop iterations), the spec's n = 4 at repeat 10 and the
/// largest repeat, the largest n, a partial last CTA.
inline std::vector<checks::SinkhornCase> sinkhornFormCases(bool backward, int64_t matrices) {
  std::vector<checks::SinkhornCase> out;
  for (auto [n, repeat] :
       std::vector<std::pair<int64_t, int64_t>>{{4, 1}, {4, 2}, {4, 10}, {4, 32}, {3, 5}, {1, 3}, {8, 3}, {16, 5}})
    out.push_back({matrices + n, n, repeat, backward, uint64_t(repeat)});
  return out;
}

} // namespace tk::test
