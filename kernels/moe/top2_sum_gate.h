//===- top2_sum_gate.h - the routing gate in one kernel (moe.md 2.3) ------===//
//
// Each CTA takes `rows` tokens' logits as a (rows, W) tile (W = E rounded up
// to a power of two, at least 32; padding columns never chosen): scores,
// selection keys (dsl/Select.h's order), the top-K, then on a (rows, slots)
// tile the normalization, the shared slots, the replica choice and the EP/TP
// numbering, stored as rows. top2SumGateReference is its math. Group
// limiting (0 < Kg < G) sums the groups' top-2 on a (rows, E / G, G) tile
// the keys reach through shared memory, picks the Kg best on a (rows, G)
// tile and runs the top-K over their experts alone.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/moe/top2_sum_gate_reference.h"

#include <string>

namespace tk::kernels::moe {

struct Top2SumGateConfig {
  int64_t experts = 0, groups = 0, topkGroups = 0, topk = 0, shared = 0;
  Scoring scoring = Scoring::Sigmoid;
  bool mask = false, fixed = false, unmapped = false;
  int64_t replicas = 0; ///< the physical map's columns (X + 1); 0: no map
  /// Schedule: tokens per CTA (0: threads / W, at least 1), threads (0: 128),
  /// warp_rows (1: the CTA's warps split its tokens, each token's row within
  /// one warp where there are at least as many tokens as warps; 0: every row
  /// spans all the warps; -1: unset, the heuristic's choice).
  int64_t rows = 0, threads = 0, warpRows = -1;
  int64_t width() const;
  int64_t rowsPerBlock() const;
  int64_t numThreads() const { return threads ? threads : 128; }
  bool grouped() const { return groups > 0 && topkGroups < groups; }
  int64_t slots() const { return topk + shared; }
  std::string key() const;
};

const OperatorSchedule<Top2SumGateConfig> &top2SumGateSchedule();

/// The heuristic's schedule for a batch of `tokens` on `sms` SMs: one token
/// per 128-thread CTA (the shortest chain for the few tokens of a decode
/// step), or, from 16 tokens an SM on (their 128-thread CTAs would fill
/// every SM's 2048 threads), each token within one warp: 16 tokens (two a
/// warp) or 8 (one a warp) on 256 threads with warp_rows, whichever the
/// schedule's checks allow; 8 with group limiting.
void fitTop2SumGateToTokens(Top2SumGateConfig &c, int64_t tokens, int64_t sms);

/// Tensors: logits (N, E) f32, bias (E) f32, [mask (N) u8], [fix (N) u8],
/// [map (flat) i32, count (E + S) i32]; outputs [unmapped (N, K) i64, with
/// fix also read: the fixed rows' ids], ids (N, P) i64, weights (N, P) f32.
/// Scalars: rsf (f32), ep_rank, R = (E + X) / num_ep_ranks, num_tp_ranks,
/// tp_rank (i64).
dsl::BuiltKernel buildTop2SumGate(mlir::MLIRContext &ctx, const Top2SumGateConfig &config);

} // namespace tk::kernels::moe
