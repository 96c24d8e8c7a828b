//===- fused_mapping_kernels.cpp ------------------------------------------===//
#include "kernels/moe/fused_mapping_kernels.h"

#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

namespace {

constexpr int64_t kFillTile = 1024; ///< positions per store of the -1 fill

Tile constant(const Tile &like, int64_t value) {
  return map({like}, DType::I32, [value](const std::vector<Scalar> &v) { return v[0].constantI32(value); });
}

/// The slots of step i of the block's W chunks: a [W, 32] tile whose row w
/// is warp w's 32 consecutive slots.
struct Steps {
  KernelBuilder &k;
  const FusedMappingConfig &c;
  Index block, count; ///< the block, S (steps per chunk)

  Steps(KernelBuilder &k, const FusedMappingConfig &c, const Dim &slots, const Index &block)
      : k(k), c(c), block(block), count(k.index(0)) {
    const int64_t perStep = c.numBlocks() * c.warps() * 32;
    count = (k.index(slots) + (perStep - 1)) / perStep;
  }
  Tile slots(const Index &i) const {
    Index first = (block * c.warps()) * count * 32 + i * 32, chunk = count * 32;
    return map({k.iota({c.warps(), 32}, 0), k.iota({c.warps(), 32}, 1)}, DType::I32,
               [&](const std::vector<Scalar> &v) { return v[0].index(first) + v[0] * v[0].index(chunk) + v[1]; });
  }
  /// The expert of each slot as i32, -1 for an empty slot, a slot past the
  /// end and an id outside [0, E).
  Tile experts(const Tensor &ids, const Tile &slot, const Dim &slots, const Uniform &numExperts) const {
    Tile id = k.gather(ids, slot);
    Index end = k.index(slots);
    return map({slot, id}, DType::I32, [&](const std::vector<Scalar> &v) {
      Scalar ok = (v[0] >= v[0].constantI32(0)) & (v[0] < v[0].index(end)) & (v[1] >= v[1].constantI64(0)) &
                  (v[1] < v[1].uniform(numExperts));
      return select(ok, v[1].truncToI32(), v[0].constantI32(-1));
    });
  }
  /// The block's W chunks are one contiguous range of slots [first, first +
  /// span): `body` gets them in flat tiles (vector loads) as experts (i32,
  /// -1 for none, as experts()) and their offsets in the range (-1 past it),
  /// for work whose order does not matter (counting).
  void forEachTile(const Tensor &ids, const Dim &slots, const Uniform &numExperts,
                   const std::function<void(const Tile &expert, const Tile &offset)> &body) const {
    Index span = count * (c.warps() * 32), first = block * span;
    Index end = first + span, last = k.index(slots);
    k.pipeline(k.index(0), (span + (kFusedMappingCountTile - 1)) / kFusedMappingCountTile, 1, [&](const Index &i) {
      Index origin = first + i * kFusedMappingCountTile;
      Tile id = k.load(ids, {origin}, {kFusedMappingCountTile});
      Tile offset = map({k.iota({kFusedMappingCountTile}, 0)}, DType::I32, [&](const std::vector<Scalar> &v) {
        // Past the block's range: another block's; past F: nothing (read as 0).
        Scalar inside = (v[0] < v[0].index(end) - v[0].index(origin)) & (v[0] < v[0].index(last) - v[0].index(origin));
        return select(inside, v[0] + v[0].index(origin) - v[0].index(first), v[0].constantI32(-1));
      });
      body(map({id, offset}, DType::I32,
               [&](const std::vector<Scalar> &v) {
                 Scalar ok =
                     (v[1] >= v[1].constantI32(0)) & (v[0] >= v[0].constantI64(0)) & (v[0] < v[0].uniform(numExperts));
                 return select(ok, v[0].truncToI32(), v[1].constantI32(-1));
               }),
           offset);
    });
  }
  /// Bin w bins + e of slot (w, lane) with expert e, -1 for none.
  Tile warpBins(const Tile &expert) const {
    return map({expert, k.iota({c.warps(), 32}, 0)}, DType::I32, [&](const std::vector<Scalar> &v) {
      return select(v[0] >= v[0].constantI32(0), v[1] * v[1].constantI32(c.bins) + v[0], v[0].constantI32(-1));
    });
  }
};

BuiltKernel buildCount(mlir::MLIRContext &ctx, const FusedMappingConfig &c) {
  KernelBuilder k(ctx, "fused_mapping_count", c.numThreads());
  applyDependentLaunch(k, c.pdl);
  k.maxAccessBytes(4); // the bins: one per thread
  Dim f = k.dynamic("slots"), m = k.dynamic("positions");
  Tensor ids = k.input("ids", {f}, DType::I64);
  Tensor counts = k.output("counts", {Dim(c.numBlocks() * c.bins)}, DType::I32);
  std::vector<Tensor> tables = {k.output("pos_to_expert", {m}, DType::I32), k.output("pos_to_token", {m}, DType::I32),
                                k.output("pos_to_token_topk", {m}, DType::I32)};
  Uniform experts = k.scalarInput("experts", DType::I64);
  k.grid({Dim(c.numBlocks())}, [&](const std::vector<Index> &b) {
    Shared hist = k.shared({c.bins}, DType::I32);
    k.store(hist, {k.index(0)}, constant(k.iota({c.bins}, 0), 0));
    k.barrier();
    Steps steps(k, c, f, b[0]);
    steps.forEachTile(ids, f, experts,
                      [&](const Tile &expert, const Tile &) { k.scatterAdd(hist, expert, constant(expert, 1)); });
    k.barrier();
    k.store(counts, {b[0] * c.bins}, k.load(hist, {k.index(0)}, {c.bins}));
    // Every position padding (-1) until Place writes the slots' positions.
    const int64_t perRound = c.numBlocks() * kFillTile;
    Tile minusOne = constant(k.iota({kFillTile}, 0), -1);
    k.pipeline(k.index(0), (k.index(m) + (perRound - 1)) / perRound, 1, [&](const Index &i) {
      Index origin = (i * c.numBlocks() + b[0]) * kFillTile;
      for (const Tensor &t : tables)
        k.store(t, {origin}, minusOne);
    });
  });
  return k.finish();
}

/// One block per kFusedMappingScanColumns experts: the column scan of their counts
/// (each block's base) and their aligned segment lengths.
BuiltKernel buildOffsets(mlir::MLIRContext &ctx, const FusedMappingConfig &c) {
  const int64_t blocks = c.numBlocks();
  KernelBuilder k(ctx, "fused_mapping_offsets", c.numScanThreads());
  applyDependentLaunch(k, c.pdl);
  k.maxAccessBytes(4);
  Dim e = k.dynamic("experts");
  Tensor counts = k.input("counts", {blocks, c.bins}, DType::I32);
  Tensor base = k.output("base", {blocks, c.bins}, DType::I32);
  Tensor aligned = k.output("num_tokens_per_expert", {1, e}, DType::I32);
  Uniform alignment = k.scalarInput("alignment", DType::I64);
  k.grid({Dim(c.bins / kFusedMappingScanColumns)}, [&](const std::vector<Index> &g) {
    Index col = g[0] * kFusedMappingScanColumns;
    Tile n = k.load(counts, {k.index(0), col}, {blocks, kFusedMappingScanColumns});
    k.store(base, {k.index(0), col}, scan_sum(n, 0, /*exclusive=*/true));
    // a_e = align(c_e, A) in i64 (the caller's bound keeps every sum below 2^31).
    k.store(aligned, {k.index(0), col}, map({reduce_sum(n, 0)}, DType::I32, [&](const std::vector<Scalar> &v) {
              Scalar a = v[0].uniform(alignment);
              return ((v[0].sextToI64() + a - v[0].constantI64(1)) / a * a).truncToI32();
            }));
  });
  return k.finish();
}

BuiltKernel buildPlace(mlir::MLIRContext &ctx, const FusedMappingConfig &c) {
  const int64_t warps = c.warps(), bins = c.bins;
  // Slots whose experts stay in shared memory between the passes: as many as
  // fit 40 KB beside the cursors.
  int64_t kept = 4096;
  while (kept > 256 && warps * bins * 4 + kept * 4 > 40960)
    kept /= 2;
  KernelBuilder k(ctx, "fused_mapping_place", c.numThreads());
  applyDependentLaunch(k, c.pdl);
  k.maxAccessBytes(4); // one element per thread: a warp per row of 32 slots, every thread busy
  Dim f = k.dynamic("slots"), m = k.dynamic("positions"), e = k.dynamic("experts");
  Tensor ids = k.input("ids", {f}, DType::I64);
  // Merged: the blocks' counts, summed here; else the Offsets kernel's bases and aligned lengths.
  Tensor counts = k.input(c.merged ? "counts" : "base", {Dim(c.numBlocks() * bins)}, DType::I32);
  std::optional<Tensor> lengthsIn;
  if (!c.merged)
    lengthsIn = k.input("num_tokens_per_expert", {e}, DType::I32);
  Tensor toPos = k.output("token_topk_to_pos", {f}, DType::I32);
  Tensor posExpert = k.output("pos_to_expert", {m}, DType::I32), posToken = k.output("pos_to_token", {m}, DType::I32),
         posSlot = k.output("pos_to_token_topk", {m}, DType::I32);
  Tensor start = k.output("expert_start", {e}, DType::I32), end = k.output("expert_end", {e}, DType::I32);
  std::optional<Tensor> lengthsOut;
  if (c.merged)
    lengthsOut = k.output("num_tokens_per_expert", {e}, DType::I32);
  Uniform experts = k.scalarInput("experts", DType::I64), topk = k.scalarInput("topk", DType::I64);
  std::optional<Uniform> alignment;
  if (c.merged)
    alignment = k.scalarInput("alignment", DType::I64);
  k.grid({Dim(c.numBlocks())}, [&](const std::vector<Index> &b) {
    // This block's base per expert (the ids e of the blocks before it) and the aligned segment lengths: merged,
    // every block sums the counts' rows itself (independent loads, in a fixed order: integers, exact).
    std::optional<Tile> before, a;
    if (c.merged) {
      Tile total = constant(k.iota({bins}, 0), 0), earlier = total;
      for (int64_t r = 0; r < c.numBlocks(); ++r) {
        Tile n = k.load(counts, {k.index(r * bins)}, {bins});
        total = total + n;
        earlier = earlier + map({n}, DType::I32, [&](const std::vector<Scalar> &v) {
                    return select(v[0].index(b[0]) > v[0].constantI32(r), v[0], v[0].constantI32(0));
                  });
      }
      before = earlier;
      // a_e = align(c_e, A) in i64 (the caller's bound keeps every sum below 2^31).
      a = map({total}, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar s = v[0].uniform(*alignment);
        return ((v[0].sextToI64() + s - v[0].constantI64(1)) / s * s).truncToI32();
      });
    } else {
      a = k.load(*lengthsIn, {k.index(0)}, {bins});
    }
    // The segments: every block scans the aligned lengths (bins of them); block 0 writes them out.
    Tile first = scan_sum(*a, 0, /*exclusive=*/true);
    Tile mine = map({k.iota({bins}, 0)}, DType::I32, [&](const std::vector<Scalar> &v) {
      return select(v[0].index(b[0]) == v[0].constantI32(0), v[0], v[0].constantI32(-1));
    });
    k.scatter(start, mine, first);
    k.scatter(end, mine, first + *a);
    if (lengthsOut)
      k.scatter(*lengthsOut, mine, *a);
    // Per warp and expert: the warp's ids of e, then (in place) its cursor;
    // the first kept slots' experts (+ 1, 0 for none) for the second pass.
    Shared table = k.shared({warps * bins}, DType::I32), keys = k.shared({kept}, DType::I32);
    k.store(table, {k.index(0)}, constant(k.iota({warps * bins}, 0), 0));
    k.barrier();
    Steps steps(k, c, f, b[0]);
    Index chunk = steps.count * 32;
    steps.forEachTile(ids, f, experts, [&](const Tile &expert, const Tile &offset) {
      Tile bin = map({expert, offset}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[0] >= v[0].constantI32(0), v[1] / v[1].index(chunk) * v[1].constantI32(bins) + v[0],
                      v[0].constantI32(-1));
      });
      k.scatterAdd(table, bin, constant(bin, 1));
      Tile at = map({offset}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[0] < v[0].constantI32(kept), v[0], v[0].constantI32(-1));
      });
      k.scatter(keys, at,
                map({expert}, DType::I32, [](const std::vector<Scalar> &v) { return v[0] + v[0].constantI32(1); }));
    });
    k.barrier();
    std::vector<Tile> perWarp;
    for (int64_t w = 0; w < warps; ++w)
      perWarp.push_back(k.load(table, {k.index(w * bins)}, {bins}));
    k.barrier();
    Tile cursor = (c.merged ? *before : k.load(counts, {b[0] * bins}, {bins})) + first;
    for (int64_t w = 0; w < warps; ++w) {
      k.store(table, {k.index(w * bins)}, cursor);
      cursor = cursor + perWarp[w];
    }
    k.barrier();
    Index blockFirst = b[0] * (steps.count * (warps * 32));
    k.pipeline(k.index(0), steps.count, 1, [&](const Index &i) {
      Tile slot = steps.slots(i);
      // Kept slots from shared memory, the others from the ids again.
      Tile offset =
          map({slot}, DType::I32, [&](const std::vector<Scalar> &v) { return v[0] - v[0].index(blockFirst); });
      Tile fromKeys = k.gather(keys, map({offset}, DType::I32, [&](const std::vector<Scalar> &v) {
                                 return select(v[0] < v[0].constantI32(kept), v[0], v[0].constantI32(-1));
                               }));
      Tile fromIds = steps.experts(ids,
                                   map({slot, offset}, DType::I32,
                                       [&](const std::vector<Scalar> &v) {
                                         return select(v[1] < v[1].constantI32(kept), v[1].constantI32(-1), v[0]);
                                       }),
                                   f, experts);
      Index last = k.index(f); // kept entries past F were never written
      Tile expert = map({offset, fromKeys, fromIds, slot}, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar fromKept = select(v[3] < v[3].index(last), v[1] - v[1].constantI32(1), v[3].constantI32(-1));
        return select(v[0] < v[0].constantI32(kept), fromKept, v[2]);
      });
      Tile rank = count_equal(expert, 1, /*before=*/true), run = count_equal(expert, 1);
      Tile bin = steps.warpBins(expert);
      Tile pos = map({expert, k.gather(table, bin), rank}, DType::I32, [](const std::vector<Scalar> &v) {
        return select(v[0] >= v[0].constantI32(0), v[1] + v[2], v[0].constantI32(-1));
      });
      k.barrier(); // every cursor read before the first of a run moves it
      Tile lead = map({bin, rank}, DType::I32, [](const std::vector<Scalar> &v) {
        return select(v[1] == v[1].constantI32(0), v[0], v[0].constantI32(-1));
      });
      k.scatterAdd(table, lead, run);
      k.barrier();
      k.scatter(toPos, slot, pos);
      k.scatter(posExpert, pos, expert);
      k.scatter(posToken, pos, map({slot}, DType::I32, [&](const std::vector<Scalar> &v) {
                  return v[0] / v[0].uniform(topk).truncToI32();
                }));
      k.scatter(posSlot, pos, slot);
    });
  });
  return k.finish();
}

} // namespace

BuiltKernel buildFusedMapping(mlir::MLIRContext &ctx, const FusedMappingConfig &c) {
  if (c.bins < 256 || c.bins % 128)
    throw std::invalid_argument("get_fused_mapping: bins must be a multiple of 128, at least 256");
  if (std::string error = fusedMappingScheduleError(c); !error.empty())
    throw std::invalid_argument("get_fused_mapping: " + error);
  switch (c.stage) {
  case FusedMappingConfig::Stage::Count:
    return buildCount(ctx, c);
  case FusedMappingConfig::Stage::Offsets:
    return buildOffsets(ctx, c);
  default:
    return buildPlace(ctx, c);
  }
}

} // namespace tk::kernels::moe
