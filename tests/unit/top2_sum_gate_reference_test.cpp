// top2_sum_gate's C++ reference (kernels/moe/top2_sum_gate_reference.h) on
// cases whose results follow from moe.md 2.3 by hand: ties to the lowest
// ids, group limiting by top-2 sums, the EP/TP numbering, the 64-bit replica
// hash, padding rows, fixed routing, the normalization.
#include "kernels/moe/mask_indices_by_tp.h"
#include "kernels/moe/top2_sum_gate.h"
#include "kernels/moe/top2_sum_gate_reference.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/ScheduleSettings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using namespace tk::kernels::moe;

struct GateRun {
  std::vector<int64_t> ids, unmapped;
  std::vector<float> weights;
};

GateRun run(const Top2SumGateParams &p, const std::vector<float> &logits, const std::vector<float> &bias,
            std::vector<int64_t> unmappedIn = {}) {
  EXPECT_EQ(top2SumGateProblem(p), "");
  GateRun r{std::vector<int64_t>(p.tokens * p.slots()), std::move(unmappedIn),
            std::vector<float>(p.tokens * p.slots())};
  r.unmapped.resize(p.tokens * p.topk, 0);
  top2SumGateReference(p, logits.data(), bias.data(), r.ids.data(), r.weights.data(), r.unmapped.data());
  return r;
}

TEST(Top2SumGateReference, EqualScoresGoToTheLowestIds) {
  Top2SumGateParams p;
  p.tokens = 3, p.experts = 72, p.topk = 6, p.routedScalingFactor = 1.5f;
  GateRun r = run(p, std::vector<float>(3 * 72, 0.0f), std::vector<float>(72, 0.0f));
  for (int64_t t = 0; t < 3; ++t)
    for (int64_t k = 0; k < 6; ++k) {
      EXPECT_EQ(r.ids[t * 6 + k], k);
      EXPECT_EQ(r.weights[t * 6 + k], 0.5f / (1e-20f + 3.0f) * 1.5f); // s / (1e-20 + sum) * rsf
    }
  // Grouped: all groups tie, so groups 0..Kg-1 are kept and experts 0..K-1 chosen.
  p.experts = 256, p.groups = 8, p.topkGroups = 4, p.topk = 8;
  r = run(p, std::vector<float>(3 * 256, 0.0f), std::vector<float>(256, 0.0f));
  for (int64_t k = 0; k < 8; ++k)
    EXPECT_EQ(r.ids[k], k);
}

TEST(Top2SumGateReference, GroupsRankByTheirTopTwoSums) {
  Top2SumGateParams p;
  p.tokens = 1, p.experts = 8, p.groups = 4, p.topkGroups = 1, p.topk = 2;
  // u = 0.5 everywhere; b = 0.5 + bias: group 0 has the best expert (0.9) but sums 0.9, group 1 sums 1.0.
  GateRun r = run(p, std::vector<float>(8, 0.0f), {0.4f, -0.5f, 0.0f, 0.0f, -1, -1, -1, -1});
  EXPECT_EQ(r.ids, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.unmapped, (std::vector<int64_t>{2, 3}));
  // Kg = G: no group step, the best expert wins.
  p.topkGroups = 4;
  r = run(p, std::vector<float>(8, 0.0f), {0.4f, -0.5f, 0.0f, 0.0f, -1, -1, -1, -1});
  EXPECT_EQ(r.ids, (std::vector<int64_t>{0, 2}));
}

TEST(Top2SumGateReference, EpTpOwnershipIsTheDenseLocalNumbering) {
  Top2SumGateParams p;
  p.tokens = 256, p.experts = 256, p.topk = 1, p.epRanks = 4, p.tpRanks = 2, p.tpRank = 1;
  // Token t's logits make expert t the best: every id passes through the masking once.
  std::vector<float> logits(256 * 256, -4.0f);
  for (int64_t t = 0; t < 256; ++t)
    logits[t * 256 + t] = 4.0f;
  GateRun r = run(p, logits, std::vector<float>(256, 0.0f));
  for (int64_t t = 0; t < 256; ++t)
    EXPECT_EQ(r.ids[t], maskIndexReference(t, 64, 2, 1)) << t;
}

TEST(Top2SumGateReference, ReplicaHashIsSixtyFourBit) {
  Top2SumGateParams p;
  p.tokens = 100001, p.experts = 4, p.topk = 1, p.epRank = 3;
  std::vector<int32_t> map(4 * 3), count = {3, 3, 2, 1};
  for (int64_t l = 0; l < 4; ++l)
    for (int64_t d = 0; d < 3; ++d)
      map[l * 3 + d] = (int32_t)(l * 3 + d);
  p.physicalMap = map.data(), p.logicalCount = count.data(), p.replicas = 3; // X = 2: R = (4 + 2) / 1 = 6
  std::vector<float> logits(p.tokens * 4, 0.0f);
  for (int64_t t = 0; t < p.tokens; ++t)
    logits[t * 4 + t % 4] = 1.0f;
  GateRun r = run(p, logits, std::vector<float>(4, 0.0f));
  for (int64_t t : {int64_t(0), int64_t(5), int64_t(92037), int64_t(100000)}) { // t 23333 past 2^31 from 92037
    const int64_t l = t % 4, d = (3 + t * 23333) % count[l];
    EXPECT_EQ(r.ids[t], l * 3 + d) << t;
  }
}

TEST(Top2SumGateReference, NegativePhysicalIdsAreUnusedSlots) {
  Top2SumGateParams p;
  p.tokens = 4, p.experts = 4, p.topk = 1, p.epRanks = 1;
  std::vector<int32_t> map = {-5, 1, -1, 2147483647}, count = {1, 1, 1, 1};
  p.physicalMap = map.data(), p.logicalCount = count.data(), p.replicas = 1; // R = 4
  std::vector<float> logits(16, 0.0f);
  for (int64_t t = 0; t < 4; ++t)
    logits[t * 4 + t] = 1.0f; // token t picks logical expert t
  GateRun r = run(p, logits, std::vector<float>(4, 0.0f));
  // -5 and -1 are unused (-1); INT32_MAX is owned by EP rank INT32_MAX / 4 (Tp 1): local INT32_MAX.
  EXPECT_EQ(r.ids, (std::vector<int64_t>{-1, 1, -1, 2147483647}));
}

TEST(Top2SumGateReference, ReplicaCountsOutsideTheMapGiveNoExpert) {
  Top2SumGateParams p;
  p.tokens = 4, p.experts = 4, p.topk = 1;
  std::vector<int32_t> map = {0, 1, 2, 3, 4, 5, 6, 7}, count = {0, 2, 3, -1}; // X + 1 = 2 columns
  p.physicalMap = map.data(), p.logicalCount = count.data(), p.replicas = 2;
  std::vector<float> logits(16, 0.0f);
  for (int64_t t = 0; t < 4; ++t)
    logits[t * 4 + t] = 1.0f; // token t picks logical expert t
  GateRun r = run(p, logits, std::vector<float>(4, 0.0f));
  // Counts 0, 3 (> X + 1) and -1 give -1; count 2 at token 1 picks replica (0 + 23333) mod 2 = 1: id 3.
  EXPECT_EQ(r.ids, (std::vector<int64_t>{-1, 3, -1, -1}));
}

TEST(Top2SumGateReference, PaddingRowsAndFixedRouting) {
  Top2SumGateParams p;
  p.tokens = 3, p.experts = 16, p.topk = 2, p.scoring = Scoring::SqrtSoftplus;
  const uint8_t mask[] = {1, 0, 1}, fix[] = {0, 1, 1};
  p.mask = mask, p.fixRouting = fix;
  std::vector<float> logits(3 * 16, 0.0f);
  logits[0 * 16 + 9] = 2.0f, logits[0 * 16 + 4] = 1.0f;
  GateRun r = run(p, logits, std::vector<float>(16, 0.0f), {0, 0, 5, 5, 7, 7}); // row 2: a duplicate, kept
  EXPECT_EQ(r.ids, (std::vector<int64_t>{9, 4, -1, -1, 7, 7}));
  EXPECT_EQ(r.weights[2], 0.0f);
  EXPECT_EQ(r.weights[3], 0.0f);
  EXPECT_EQ(r.unmapped, (std::vector<int64_t>{9, 4, -1, -1, 7, 7})); // padding rows -1, fixed rows as given
  const float u0 = std::sqrt(std::log1p(std::exp(0.0f)));
  EXPECT_EQ(r.weights[4], u0 / (1e-20f + u0 + u0));
}

TEST(Top2SumGateReference, SoftmaxWeightsSumToTheScale) {
  Top2SumGateParams p;
  p.tokens = 64, p.experts = 32, p.topk = 32, p.scoring = Scoring::Softmax, p.routedScalingFactor = 2.5f;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> logits(64 * 32), bias(32);
  for (float &v : logits)
    v = normal(rng);
  for (float &v : bias)
    v = normal(rng);
  GateRun r = run(p, logits, bias);
  for (int64_t t = 0; t < 64; ++t) {
    double sum = 0;
    for (int64_t k = 0; k < 32; ++k)
      sum += r.weights[t * 32 + k];
    EXPECT_NEAR(sum, 2.5, 1e-5) << t;
  }
}

TEST(Top2SumGateReference, ProblemsAreNamed) {
  Top2SumGateParams p;
  p.tokens = 1, p.experts = 64, p.topk = 8;
  EXPECT_EQ(top2SumGateProblem(p), "");
  p.groups = 8;
  EXPECT_NE(top2SumGateProblem(p).find("both 0 or both positive"), std::string::npos);
  p.topkGroups = 1, p.topk = 9; // 9 > 1 x 8
  EXPECT_NE(top2SumGateProblem(p).find("K <= Kg x (E / G)"), std::string::npos);
  p.topk = 8, p.sharedSlots = 2;
  EXPECT_NE(top2SumGateProblem(p).find("physical map"), std::string::npos);
  p.sharedSlots = 0, p.tpRank = 2, p.tpRanks = 2;
  EXPECT_NE(top2SumGateProblem(p).find("tp_rank"), std::string::npos);
  // The kernel's 32-bit map indices and expert numbers: (E + S) x (X + 1) entries must fit int32 (2^31 here).
  p.tpRank = 0;
  int32_t entry = 0, count = 1;
  p.physicalMap = &entry, p.logicalCount = &count, p.replicas = int64_t(1) << 25;
  EXPECT_NE(top2SumGateProblem(p).find("must fit int32"), std::string::npos);
  p.replicas = (int64_t(1) << 25) - 1;
  EXPECT_EQ(top2SumGateProblem(p), "");
}

// Many tokens take a warp each (16 tokens on 256 threads, or 8 with group limiting or where 16 rows' shared buffers
// pass 48 KB); fewer than 16 an SM keep the default, as do configurations where neither fits.
TEST(Top2SumGateSchedule, ManyTokensTakeAWarpEach) {
  Top2SumGateConfig c;
  c.experts = 72, c.topk = 6;
  Top2SumGateConfig few = c;
  fitTop2SumGateToTokens(few, 16 * 132 - 1, 132);
  EXPECT_EQ(few.key(), c.key());
  Top2SumGateConfig many = c;
  fitTop2SumGateToTokens(many, 16 * 132, 132);
  EXPECT_EQ(many.rows, 16);
  EXPECT_EQ(many.threads, 256);
  EXPECT_EQ(many.warpRows, 1);
  EXPECT_NE(many.key().find("rows=16,threads=256,warp_rows=1"), std::string::npos) << many.key();
  c.experts = 256, c.topk = 8, c.groups = 8, c.topkGroups = 4, c.shared = 2, c.replicas = 33;
  Top2SumGateConfig grouped = c;
  fitTop2SumGateToTokens(grouped, 16384, 132);
  EXPECT_EQ(grouped.rows, 8); // one a warp: faster than two with group limiting
  EXPECT_EQ(grouped.warpRows, 1);
  c.groups = c.topkGroups = 0, c.experts = 1024; // 16 rows' copies of u and the ids pass 48 KB; 8 rows' do not
  Top2SumGateConfig wider = c;
  fitTop2SumGateToTokens(wider, 16384, 132);
  EXPECT_EQ(wider.rows, 8);
  EXPECT_EQ(wider.warpRows, 1);
  c.experts = 2048;
  Top2SumGateConfig wide = c;
  fitTop2SumGateToTokens(wide, 16384, 132);
  EXPECT_EQ(wide.key(), c.key());
}

TEST(Top2SumGateSchedule, SharedMemoryPast48KBIsRefused) {
  const tk::compiler::Target sm90 = *tk::compiler::findTarget("sm_90a");
  auto choose = [&](Top2SumGateConfig c, const std::string &fields) {
    EXPECT_EQ(top2SumGateSchedule().spec().parse(fields, c), "") << fields;
    tk::runtime::ScheduleSettings settings;
    tk::runtime::ScheduleChoice choice;
    return top2SumGateSchedule().choose(settings, sm90, c, choice).message();
  };
  Top2SumGateConfig c;
  c.experts = 1024, c.topk = 8;
  // u's copy and the chosen ids (8 a row): 8 rows of 1024 + 8 four-byte values are 33 KB, 16 rows twice that;
  // rows spread over 32 warps add each reduction's exchange (32 warps x 8 rows x 8 bytes, 22 of them): 8 rows
  // are refused on 1024 threads, and taken with warp_rows (each row in its warp) or with 4 rows.
  EXPECT_NE(choose(c, "rows=64,threads=1024").find("over 48 KB"), std::string::npos);
  EXPECT_NE(choose(c, "rows=8,threads=1024").find("45056 the block reductions'"), std::string::npos);
  EXPECT_EQ(choose(c, "rows=8,threads=1024,warp_rows=1"), "");
  EXPECT_EQ(choose(c, "rows=4,threads=1024"), "");
  EXPECT_NE(choose(c, "rows=16,threads=1024").find("over 48 KB"), std::string::npos);
  // Group limiting holds the keys too, and two (rows, G) tables: 4 rows are 33 KB, 8 rows twice that.
  c.groups = 8, c.topkGroups = 4;
  EXPECT_EQ(choose(c, "rows=4,threads=256"), "");
  EXPECT_NE(choose(c, "rows=8,threads=256").find("over 48 KB"), std::string::npos);
  // With replicas logical_count's (E + S) x 4 bytes are staged there too: one row of 8192 columns and 16 slots
  // (32832 bytes, and 1408 for the reductions across its 8 warps) fits alone, not with 6146 counts.
  Top2SumGateConfig wide;
  wide.experts = 6144, wide.topk = 8, wide.replicas = 33, wide.shared = 2;
  EXPECT_NE(choose(wide, "rows=1,threads=256")
                .find("1 rows of 8192 take 58824 bytes of shared memory (24584 of them logical_count's, 1408 the "
                      "block reductions'), over 48 KB"),
            std::string::npos)
      << choose(wide, "rows=1,threads=256");
  wide.replicas = 0;
  EXPECT_EQ(choose(wide, "rows=1,threads=256"), "");
}

} // namespace

namespace {
// What a call's fit changed (top2_sum_gate's warp per token, sinkhorn's register cap) is logged beside the choice
// it fitted, which keeps its source and fields; the next call's choice starts without one.
TEST(ScheduleLog, AFitIsRecordedBesideTheChoice) {
  tk::runtime::ScheduleLog log;
  tk::runtime::ScheduleChoice heuristic;
  heuristic.source = "heuristic", heuristic.target = "sm_90a";
  log.record("top2_sum_gate", heuristic);
  log.recordFit("top2_sum_gate", "rows=16,threads=256,warp_rows=1");
  EXPECT_EQ(log.last("top2_sum_gate").fitted, "rows=16,threads=256,warp_rows=1");
  EXPECT_EQ(log.last("top2_sum_gate").source, "heuristic");
  EXPECT_EQ(log.last("top2_sum_gate").schedule, "");
  log.record("top2_sum_gate", heuristic);
  EXPECT_EQ(log.last("top2_sum_gate").fitted, "");
}
} // namespace
