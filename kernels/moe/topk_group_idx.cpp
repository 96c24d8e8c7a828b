//===- topk_group_idx.cpp -------------------------------------------------===//
#include "kernels/moe/topk_group_idx.h"
#include "tk/dsl/Select.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildTopkGroupIdx(mlir::MLIRContext &ctx, const TopkGroupIdxConfig &c) {
  if (c.groups < 1 || c.perGroup < 1 || (c.topkSum != 1 && c.topkSum != 2) || c.topkSum > c.perGroup ||
      c.topkGroups < 1 || c.topkGroups > c.groups)
    throw std::invalid_argument("topk_sum_and_topk_group_idx: needs q in {1, 2}, q <= epg, 1 <= Kg <= G");
  const int64_t rows = c.rowsPerBlock(), epg = c.perGroup;
  KernelBuilder k(ctx, "topk_sum_and_topk_group_idx", c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor scores = k.input("scores", {tokens, c.groups, epg}, DType::F32);
  Tensor out = k.output("group_idx", {tokens, c.topkGroups, 1}, DType::I64);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    // (rows, G, epg): the groups' scores reduce along the last dimension, and
    // the groups rank along the middle one (two reductions of different dims).
    Tile keys = rankKeys(k.load(scores, {row, k.index(0), k.index(0)}, {rows, c.groups, epg}));
    Tile first = reduce_max(keys, 2); // (rows, G, 1): each group's best key
    Tile groupScore = keyValues(first);
    if (c.topkSum == 2) {
      // The second best as a multiset: knock out the first position holding the best, take the best of the rest.
      Tile position = k.iota({rows, c.groups, epg}, 2, DType::I32);
      Tile firstAt = reduce_min(map({keys, expand(first, 2, epg), position}, DType::I32,
                                    [](const std::vector<Scalar> &s) {
                                      return select(s[0] == s[1], s[2], s[2].constantI32(0x7FFFFFFF));
                                    }),
                                2);
      Tile rest = map({keys, position, expand(firstAt, 2, epg)}, DType::I32, [](const std::vector<Scalar> &s) {
        return select(s[1] == s[2], s[0].constantI32(std::numeric_limits<int32_t>::min()), s[0]);
      });
      groupScore = groupScore + keyValues(reduce_max(rest, 2)); // one fp32 addition
    }
    std::vector<Tile> best = topkColumns(rankKeys(groupScore), c.topkGroups, c.groups, /*dim=*/1);
    for (int64_t r = 0; r < c.topkGroups; ++r)
      k.store(out, {row, k.index(r), k.index(0)},
              map({best[r]}, DType::I64, [](const std::vector<Scalar> &v) { return v[0].sextToI64(); }));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
