//===- top2_sum_gate.cpp --------------------------------------------------===//
#include "kernels/moe/top2_sum_gate.h"
#include "tk/dsl/Select.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace tk::kernels::moe {

using namespace tk::dsl;

/// Replica counts up to which the replica hash runs in 32 bits (below).
constexpr int64_t kReplicasIn32Bits = 65536;

/// Steps 5a and 5b with group limiting: the top-K among the experts of the
/// Kg groups of best top-2 sums (K <= Kg epg). The (rows, W) keys go through
/// shared memory to a (rows, epg, G) tile (padded to powers of two) that
/// reduces to each group's top-2 sum; those go through shared memory to a
/// (rows, G) tile that picks the Kg best groups, which go back in ascending
/// order; the top-K rounds then run over a (rows, Kg epg) tile of those
/// groups' keys, gathered from the first copy, and map positions to ids.
static std::vector<Tile> topkInBestGroups(KernelBuilder &k, const Top2SumGateConfig &c, const Tile &keys,
                                          int64_t rows) {
  const int64_t width = c.width(), e = c.experts, groups = c.groups, epg = e / groups;
  const int64_t gp = llvm::PowerOf2Ceil(groups), ep = llvm::PowerOf2Ceil(epg);
  const int32_t taken = std::numeric_limits<int32_t>::min();
  Shared flat = k.shared({rows * width}, DType::I32);
  Tile line = k.iota({rows, width}, 0), col = k.iota({rows, width}, 1);
  auto at = [&](const Scalar &r, const Scalar &c) { return r * r.constantI32(width) + c; };
  k.scatter(flat, map({line, col}, DType::I32, [&](const std::vector<Scalar> &v) { return at(v[0], v[1]); }), keys);
  k.barrier();
  // Groups along the last dimension: a group's members spread over a few lanes and each thread's registers, so
  // that its top-2 takes in-thread maxima and two or three shuffles, not five per group.
  const std::vector<int64_t> shape3 = {rows, ep, gp};
  Tile line3 = k.iota(shape3, 0), member = k.iota(shape3, 1), group = k.iota(shape3, 2);
  auto inside = [&](const Scalar &g, const Scalar &j) {
    return (g < g.constantI32(groups)) & (j < j.constantI32(epg));
  };
  Tile keys3 =
      map({k.gather(flat, map({line3, group, member}, DType::I32,
                              [&](const std::vector<Scalar> &v) {
                                return select(inside(v[1], v[2]), at(v[0], v[1] * v[1].constantI32(epg) + v[2]),
                                              v[0].constantI32(-1));
                              })),
           group, member},
          DType::I32,
          [&](const std::vector<Scalar> &v) { return select(inside(v[1], v[2]), v[0], v[0].constantI32(taken)); });
  // m1 + m2 as a multiset: the best key, then the best of the rest with the first position holding the best
  // knocked out; packed rank keys (dsl/Select.h) find both in two max-reduces.
  Tile packed = map({keys3, member}, DType::I64, [](const std::vector<Scalar> &v) { return packRankKey(v[0], v[1]); });
  Tile firstPacked = reduce_max(packed, 1);
  Tile secondPacked = reduce_max(map({packed, expand(firstPacked, 1, ep)}, DType::I64,
                                     [](const std::vector<Scalar> &v) { return knockOut(v[0], v[1]); }),
                                 1);
  auto keyOf = [](const Tile &p) {
    return map({p}, DType::I32, [](const std::vector<Scalar> &v) { return packedKey(v[0]); });
  };
  Tile first = keyOf(firstPacked), second = keyOf(secondPacked);
  Tile groupKeys = rankKeys(keyValues(first) + keyValues(second)); // (rows, 1, G)
  // Each group's key to a (rows, G) table (one thread of those that reduced the group writes it); the Kg best
  // groups are chosen on a tile of that width and written back in ascending order, and the top-K runs over
  // their Kg epg experts alone, in that order: a position's rank ties break as its expert's id would.
  const int64_t kgp = llvm::PowerOf2Ceil(c.topkGroups), candidates = c.topkGroups * epg;
  auto atGroup = [&](const Scalar &r, const Scalar &g) { return r * r.constantI32(gp) + g; };
  auto atBest = [&](const Scalar &r, const Scalar &q) { return r * r.constantI32(kgp) + q; };
  Shared ranked = k.shared({rows * gp}, DType::I32), best = k.shared({rows * kgp}, DType::I32);
  k.scatter(ranked,
            map({k.iota({rows, 1, gp}, 0), k.iota({rows, 1, gp}, 2)}, DType::I32,
                [&](const std::vector<Scalar> &v) { return atGroup(v[0], v[1]); }),
            groupKeys);
  k.barrier();
  Tile lineG = k.iota({rows, gp}, 0), colG = k.iota({rows, gp}, 1);
  Tile byGroup = k.gather(ranked, map({lineG, colG}, DType::I32, [&](const std::vector<Scalar> &v) {
                            return select(v[1] < v[1].constantI32(groups), atGroup(v[0], v[1]), v[1].constantI32(-1));
                          }));
  std::vector<Tile> chosen = topkColumns(byGroup, c.topkGroups, groups, -1, TopkRounds::Packed);
  Tile rowLine = k.iota({rows, 1}, 0);
  for (int64_t q = 0; q < c.topkGroups; ++q) { // the q-th smallest of the (distinct) chosen groups
    k.scatter(
        best,
        map({rowLine}, DType::I32, [&](const std::vector<Scalar> &v) { return atBest(v[0], v[0].constantI32(q)); }),
        map(chosen, DType::I32, [&](const std::vector<Scalar> &v) {
          Scalar out = v[0];
          for (size_t i = 0; i < v.size(); ++i) {
            Scalar below = v[i].constantI32(0);
            for (size_t j = 0; j < v.size(); ++j)
              below = below + select(v[j] < v[i], v[i].constantI32(1), v[i].constantI32(0));
            out = select(below == below.constantI32(q), v[i], out);
          }
          return out;
        }));
  }
  k.barrier();
  const int64_t cp = llvm::PowerOf2Ceil(candidates);
  Tile lineC = k.iota({rows, cp}, 0), colC = k.iota({rows, cp}, 1);
  Tile groupOf = k.gather(best, map({lineC, colC}, DType::I32, [&](const std::vector<Scalar> &v) {
                            return select(v[1] < v[1].constantI32(candidates),
                                          atBest(v[0], divs(v[1], v[1].constantI32(epg))), v[1].constantI32(-1));
                          }));
  Tile candidateKeys = k.gather(
      flat, map({lineC, colC, groupOf}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[1] < v[1].constantI32(candidates),
                      at(v[0], v[2] * v[2].constantI32(epg) + rems(v[1], v[1].constantI32(epg))), v[1].constantI32(-1));
      }));
  std::vector<Tile> sel;
  for (const Tile &position : topkColumns(candidateKeys, c.topk, candidates, -1, TopkRounds::Packed))
    sel.push_back(map({k.gather(best, map({rowLine, position}, DType::I32,
                                          [&](const std::vector<Scalar> &v) {
                                            return atBest(v[0], divs(v[1], v[1].constantI32(epg)));
                                          })),
                       position},
                      DType::I32, [&](const std::vector<Scalar> &v) {
                        return v[0] * v[0].constantI32(epg) + rems(v[1], v[1].constantI32(epg));
                      }));
  return sel;
}

BuiltKernel buildTop2SumGate(mlir::MLIRContext &ctx, const Top2SumGateConfig &c) {
  const int64_t rows = c.rowsPerBlock(), width = c.width(), e = c.experts;
  if (c.grouped() &&
      (c.experts % c.groups || c.experts / c.groups < 2 || c.topk > c.topkGroups * (c.experts / c.groups)))
    throw std::invalid_argument("top2_sum_gate: group limiting needs E % G == 0, E / G >= 2 and K <= Kg E / G");
  KernelBuilder k(ctx, "top2_sum_gate", c.numThreads());
  k.maxAccessBytes(4); // one element per thread and dtype: every (rows, 1) tile of one layout
  if (c.warpRows == 1)
    k.warpsAlongRows(); // a token's reductions in one warp: shuffles, no shared memory between warps
  Dim tokens = k.dynamic("tokens");
  Tensor logits = k.input("logits", {tokens, e}, DType::F32);
  Tensor bias = k.input("bias", {e}, DType::F32);
  std::optional<Tensor> mask, fix, physicalMap, count, fixedIds, unmapped;
  if (c.mask)
    mask = k.input("mask", {tokens}, DType::U8);
  if (c.fixed)
    fix = k.input("fix_routing_mask", {tokens}, DType::U8);
  if (c.replicas) {
    physicalMap = k.input("to_physical_map", {(e + c.shared) * c.replicas}, DType::I32);
    count = k.input("logical_count", {e + c.shared}, DType::I32);
  }
  if (c.fixed && !c.unmapped)
    throw std::invalid_argument("top2_sum_gate: fixed routing reads its rows' ids from unmapped_topk_idx");
  if (c.unmapped) // any row stride (moe.md 2.3): aligned to its elements only
    unmapped = k.output("unmapped_topk_idx", {tokens, c.topk}, DType::I64, {kDynamicStride, 1}, 8);
  if (c.fixed) // in place: the fixed rows' stored ids are read before the CTA that owns the rows writes them
    fixedIds = unmapped;
  Tensor ids = k.output("topk_idx", {tokens, c.slots()}, DType::I64);
  Tensor weights = k.output("topk_weights", {tokens, c.slots()}, DType::F32);
  Uniform rsf = k.scalarInput("routed_scaling_factor", DType::F32), epRank = k.scalarInput("ep_rank", DType::I64),
          perRank = k.scalarInput("experts_per_ep_rank", DType::I64),
          tpRanks = k.scalarInput("num_tp_ranks", DType::I64), tpRank = k.scalarInput("tp_rank", DType::I64);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    Tile x = k.load(logits, {row, k.index(0)}, {rows, width});
    // logical_count staged in shared memory beside the logits' load (the barrier before the slots covers it):
    // a slot's replica then takes one dependent global read (to_physical_map) after the top-K, not two.
    std::optional<Shared> countStaged;
    if (count) {
      const int64_t logical = e + c.shared;
      countStaged = k.shared({logical}, DType::I32);
      Tile at = k.iota({(int64_t)llvm::PowerOf2Ceil(logical)}, 0);
      Tile inside = map({at}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[0] < v[0].constantI32(logical), v[0], v[0].constantI32(-1));
      });
      k.scatter(*countStaged, inside, k.gather(*count, inside));
    }
    Tile col = k.iota({rows, width}, 1), line = k.iota({rows, width}, 0);
    auto valid = [&](const Scalar &column) { return column < column.constantI32(e); };
    Tile biasT = k.gather(bias, map({col}, DType::I32, [&](const std::vector<Scalar> &v) {
                            return select(valid(v[0]), v[0], v[0].constantI32(-1));
                          }));
    // Step 3: the unbiased scores u (0 in padding columns).
    Tile u = c.scoring == Scoring::Softmax ? [&] {
      Tile shifted = map({x, col}, DType::F32, [&](const std::vector<Scalar> &v) {
        return select(valid(v[1]), v[0], v[0].constantF32(-std::numeric_limits<float>::infinity()));
      });
      Tile z = map({shifted, expand(reduce_max(shifted, 1), 1, width)}, DType::F32,
                   [](const std::vector<Scalar> &v) { return exp(v[0] - v[1]); });
      return z / expand(reduce_sum(z, 1), 1, width);
    }()
                                           : map({x, col}, DType::F32, [&](const std::vector<Scalar> &v) {
                                               Scalar s = c.scoring == Scoring::Sigmoid ? sigmoid(v[0])
                                                                                        : sqrt(softplus(v[0]));
                                               return select(valid(v[1]), s, v[0].constantF32(0));
                                             });
    // Step 4: the selection keys.
    Tile keys = rankKeys((c.scoring == Scoring::Softmax ? x : u) + biasT);
    // Step 5b: the top-K. Its rows span the warps, or with warp_rows each lies in one.
    std::vector<Tile> sel =
        c.grouped() ? topkInBestGroups(k, c, keys, rows) : topkColumns(keys, c.topk, e, -1, TopkRounds::Packed);
    if (fix) {
      // The flag and the stored ids as reductions of tiles of copies as wide as the slots' (the experts', or with
      // group limiting the candidates'): they must share the slots' layout, which a (rows, 1) gather does not have.
      const int64_t across = c.grouped() ? (int64_t)llvm::PowerOf2Ceil(c.topkGroups * (e / c.groups)) : width;
      Tile copies = across == width ? line : k.iota({rows, across}, 0);
      Tile copyCol = across == width ? col : k.iota({rows, across}, 1);
      Tile tokenCopies =
          map({copies}, DType::I32, [&](const std::vector<Scalar> &v) { return v[0] + v[0].index(row); });
      Tile fixedRow =
          reduce_max(map({k.gather(*fix, tokenCopies)}, DType::I32,
                         [](const std::vector<Scalar> &v) {
                           return select(v[0] != v[0].zero(DType::U8), v[0].constantI32(1), v[0].constantI32(0));
                         }),
                     1);
      Tile stored = k.load(*fixedIds, {row, k.index(0)}, {rows, across}); // columns past K read 0
      for (int64_t s = 0; s < c.topk; ++s) {
        Tile id = reduce_max(map({stored, copyCol}, DType::I32,
                                 [s](const std::vector<Scalar> &v) {
                                   return select(v[1] == v[1].constantI32(s), v[0].truncToI32(),
                                                 v[1].constantI32(std::numeric_limits<int32_t>::min()));
                                 }),
                             1);
        sel[s] = map({fixedRow, id, sel[s]}, DType::I32,
                     [](const std::vector<Scalar> &v) { return select(v[0] != v[0].constantI32(0), v[1], v[2]); });
      }
    }
    // Steps 6-12 on a (rows, slots) tile, a slot a column: the scores, the replica, the ownership divisions and
    // the stores run once per element, spread over the lanes, instead of once per slot on every lane that holds
    // the row. The K chosen ids reach that tile through shared memory, beside a copy of u that the scores are
    // read from; both are written before one barrier. (An expand of the slots' reductions to this width would
    // need the reduced layout of another group.)
    const int64_t slotWidth = llvm::PowerOf2Ceil(c.slots());
    Shared uShared = k.shared({rows * width}, DType::F32), chosen = k.shared({rows * slotWidth}, DType::I32);
    k.scatter(uShared, map({line, col}, DType::I32, [&](const std::vector<Scalar> &v) {
                return v[0] * v[0].constantI32(width) + v[1];
              }),
              u);
    Tile rowLine = k.iota({rows, 1}, 0); // laid out as the slots (reductions) it is combined with
    for (int64_t s = 0; s < c.topk; ++s)
      k.scatter(
          chosen,
          map({rowLine}, DType::I32,
              [&](const std::vector<Scalar> &v) { return v[0] * v[0].constantI32(slotWidth) + v[0].constantI32(s); }),
          sel[s]);
    k.barrier();
    Tile line2 = k.iota({rows, slotWidth}, 0), slot = k.iota({rows, slotWidth}, 1);
    auto chosenAt = [&](const std::function<Scalar(const Scalar &)> &column) {
      return k.gather(chosen, map({line2, slot}, DType::I32, [&](const std::vector<Scalar> &v) {
                        return v[0] * v[0].constantI32(slotWidth) + column(v[1]);
                      }));
    };
    // s_k = u at the chosen expert; an id outside the tile (a fixed row's, unchecked) scores -1, as a reduction
    // of the matching columns would.
    auto inTile = [width](const Scalar &id) { return (id >= id.constantI32(0)) & (id < id.constantI32(width)); };
    auto scoreOf = [&](const Tile &id) {
      Tile at = map({line2, id}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(inTile(v[1]), v[0] * v[0].constantI32(width) + v[1], v[1].constantI32(-1));
      });
      return map({k.gather(uShared, at), id}, DType::F32,
                 [&](const std::vector<Scalar> &v) { return select(inTile(v[1]), v[0], v[0].constantF32(-1)); });
    };
    // D = 1e-20 + s_0 + ... in slot order: each element sums its row's K scores itself.
    Tile d = map({slot}, DType::F32, [](const std::vector<Scalar> &v) { return v[0].constantF32(1e-20); });
    for (int64_t s = 0; s < c.topk; ++s)
      d = d + scoreOf(chosenAt([&](const Scalar &col) { return col.constantI32(s); }));
    // Shared experts fill the slots after K; padding columns (never stored) hold -1.
    Tile id = map(
        {chosenAt([&](const Scalar &col) { return select(col < col.constantI32(c.topk), col, col.constantI32(0)); }),
         slot},
        DType::I32, [&](const std::vector<Scalar> &v) {
          Scalar shared =
              select(v[1] < v[1].constantI32(c.slots()), v[1] + v[1].constantI32(e - c.topk), v[1].constantI32(-1));
          return select(v[1] < v[1].constantI32(c.topk), v[0], shared);
        });
    Tile tokens2 = map({line2}, DType::I32, [&](const std::vector<Scalar> &v) { return v[0] + v[0].index(row); });
    Tile routed = mask ? map({k.gather(*mask, tokens2)}, DType::I32,
                             [](const std::vector<Scalar> &v) { // rows past the tensor read 0
                               return select(v[0] != v[0].zero(DType::U8), v[0].constantI32(1), v[0].constantI32(0));
                             })
                       : map({slot}, DType::I32, [](const std::vector<Scalar> &v) { return v[0].constantI32(1); });
    if (unmapped) // its K columns: the padding and the shared slots are not written
      k.storePadded(*unmapped, {row, k.index(0)}, map({routed, id}, DType::I64, [](const std::vector<Scalar> &v) {
        return select(v[0] != v[0].constantI32(0), v[1], v[1].constantI32(-1)).sextToI64();
      }));
    Tile physical = id;
    if (physicalMap) { // the replica (ep_rank + t 23333) mod n: the 64-bit value, in 32 bits where it can
      // A count outside [1, X + 1] (the spec requires it inside; it is data) gives no expert (-1), not a
      // division by zero.
      Tile n = k.gather(*countStaged, id); // zero for an id outside [0, E + S), as the tensor's gather
      Tile replica = map({tokens2, n}, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar ok = (v[1] >= v[1].constantI32(1)) & (v[1] <= v[1].constantI32(c.replicas));
        Scalar m = select(ok, v[1], v[1].constantI32(1));
        Scalar d = [&] {
          if (c.replicas > kReplicasIn32Bits) {
            Scalar h = v[0].uniform(epRank) + v[0].sextToI64() * v[0].constantI64(23333);
            return floormod(h, m.sextToI64()).truncToI32();
          }
          // ep_rank, t >= 0 and 1 <= m <= 65536: the residues' sum (ep_rank % m) + (t % m) (23333 % m) is
          // below m^2 <= 2^32, so unsigned 32-bit remainders give the 64-bit hash's value, without the
          // subroutine of a 64-bit division (some hundred instructions) on the slot's path.
          auto mod = [&](const Scalar &a) { return a - a / m * m; };
          Scalar sum = mod(v[0].uniform(epRank).truncToI32()) + mod(v[0]) * mod(v[0].constantI32(23333));
          return mod(sum);
        }();
        return select(ok, d, v[1].constantI32(-1));
      });
      physical = map(
          {k.gather(*physicalMap, map({id, replica}, DType::I32,
                                      [&](const std::vector<Scalar> &v) {
                                        return select(v[1] >= v[1].constantI32(0),
                                                      v[0] * v[0].constantI32(c.replicas) + v[1], v[1].constantI32(-1));
                                      })),
           replica},
          DType::I32,
          [](const std::vector<Scalar> &v) { return select(v[1] >= v[1].constantI32(0), v[0], v[1].constantI32(-1)); });
    }
    // EP/TP ownership: -1 unless this TP rank owns the id's EP rank, then the dense local number. In 32 bits:
    // ids, ranks and experts per rank are int32 (the C API's, validated positive), and every quotient, remainder
    // and local number lies between zero and the id, so the values are the 64-bit math's; a 64-bit division is
    // a subroutine of some hundred dependent instructions.
    k.storePadded(ids, {row, k.index(0)}, map({routed, physical}, DType::I64, [&](const std::vector<Scalar> &v) {
                    Scalar id = v[1], per = v[1].uniform(perRank).truncToI32(),
                           ranks = v[1].uniform(tpRanks).truncToI32();
                    Scalar r = divs(id, per);
                    Scalar owned = (id >= id.constantI32(0)) & (rems(r, ranks) == v[1].uniform(tpRank).truncToI32());
                    Scalar local = divs(r, ranks) * per + rems(id, per);
                    return select(owned & (v[0] != v[0].constantI32(0)), local, id.constantI32(-1)).sextToI64();
                  }));
    k.storePadded(
        weights, {row, k.index(0)}, map({routed, slot, scoreOf(id), d}, DType::F32, [&](const std::vector<Scalar> &v) {
          Scalar weight = select(v[1] < v[1].constantI32(c.topk), v[2] / v[3] * v[2].uniform(rsf), v[2].constantF32(1));
          return select(v[0] != v[0].constantI32(0), weight, v[2].constantF32(0));
        }));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
