// Where a call's schedule comes from (TK_SCHEDULE, the tuning table, the
// heuristic), and that every schedule `tk tune` may time for a call computes
// what the heuristic's does: each operator's declared search space, run on
// the CPU path, is bit-exact or refused with a clear error.
#include "checks/engram_gate_check.h"
#include "checks/expand_check.h"
#include "checks/fused_mapping_check.h"
#include "checks/gpu_session.h"
#include "checks/histogram_check.h"
#include "checks/lossless_check.h"
#include "checks/mask_indices_check.h"
#include "checks/per_channel_cast_check.h"
#include "checks/per_token_cast_check.h"
#include "checks/reduce_fused_check.h"
#include "checks/sinkhorn_check.h"
#include "checks/swiglu_backward_check.h"
#include "checks/swiglu_check.h"
#include "checks/top2_sum_gate_check.h"
#include "checks/transpose_check.h"
#include "kernels/common/operator_schedule.h"
#include "kernels/engram/gate_backward.h"
#include "kernels/engram/gate_forward.h"
#include "kernels/mhc/sinkhorn.h"
#include "kernels/transpose/batched_transpose.h"
#include "tests/kernels/schedule_context.h"
#include "tk/runtime/Context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>

namespace {

using tk::checks::CheckResult;
using Check = std::function<CheckResult(tk_context)>;

/// The tuning table's text (table.tsv's format) from its rows.
std::string tableText(const std::vector<tk::kernels::TableRow> &rows) {
  std::string out;
  for (const auto &r : rows)
    out += r.op + "\t" + r.target + "\t" + r.problem + "\t" + r.schedule + "\n";
  return out;
}

/// Puts the built-in table back when a test that replaced it ends.
struct TableRestore {
  std::vector<tk::kernels::TableRow> saved = tk::kernels::tuningTableRows();
  ~TableRestore() { EXPECT_EQ(tk::kernels::replaceTuningTable(tableText(saved), "saved"), ""); }
};

const tk::checks::TransposeCase kTranspose{2, 256, 256, TK_BF16, 0, /*batched=*/true};

/// What the last call in `ctx` ran with for `op`.
tk::runtime::ScheduleChoice last(tk_context ctx, const std::string &op) { return ctx->scheduleLog.last(op); }

// The table's row for (operator, target, shape class) gives the call its
// schedule; TK_SCHEDULE comes first; without the table, the heuristic.
TEST(Schedules, TableRowsTKScheduleAndTheHeuristic) {
  TableRestore restore;
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CheckResult r = tk::checks::checkTranspose(nullptr, ctx, kTranspose, false);
  ASSERT_TRUE(r.exact()) << r.describe();
  tk::runtime::ScheduleChoice heuristic = last(ctx, "transpose");
  EXPECT_EQ(heuristic.source, "heuristic");
  EXPECT_EQ(heuristic.schedule, "");
  EXPECT_EQ(heuristic.target, "cpu");
  EXPECT_NE(heuristic.problem.find("batched_transpose:R=256,C=256"), std::string::npos) << heuristic.problem;

  ASSERT_EQ(tk::kernels::replaceTuningTable(
                "# a comment\ntranspose\tcpu\t" + heuristic.problem + "\trows=32,cols=128,threads=64\n", "test"),
            "");
  r = tk::checks::checkTranspose(nullptr, ctx, kTranspose, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(ctx, "transpose").source, "table");
  EXPECT_EQ(last(ctx, "transpose").schedule, "rows=32,cols=128,threads=64");
  // Another shape class, or another target, is not the row's.
  r = tk::checks::checkTranspose(nullptr, ctx, {2, 256, 128, TK_BF16, 0, true}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(ctx, "transpose").source, "heuristic");

  ctx->schedules.useTable = false; // tk bench --no-table
  r = tk::checks::checkTranspose(nullptr, ctx, kTranspose, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(ctx, "transpose").source, "heuristic");
  tk_context_destroy(ctx);

  tk::test::ScheduledContext experiment("transpose:rows=64,cols=32");
  r = tk::checks::checkTranspose(nullptr, experiment, kTranspose, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(experiment, "transpose").source, "TK_SCHEDULE");
  EXPECT_EQ(last(experiment, "transpose").schedule, "rows=64,cols=32");
}

// OPERATOR:+FIELDS changes those fields of the table's row (the rest stay); where the call has no row, of the
// heuristic's; a bare '+' and a field the row's kernel refuses are errors.
TEST(Schedules, TKSchedulePlusChangesTheTableRow) {
  TableRestore restore;
  std::string problem;
  {
    tk::test::ScheduledContext probe("");
    ASSERT_TRUE(tk::checks::checkTranspose(nullptr, probe, kTranspose, false).exact());
    problem = last(probe, "transpose").problem;
  }
  ASSERT_EQ(tk::kernels::replaceTuningTable("transpose\tcpu\t" + problem + "\trows=32,cols=128,threads=64\n", "test"),
            "");
  tk::test::ScheduledContext plus("transpose:+threads=128");
  CheckResult r = tk::checks::checkTranspose(nullptr, plus, kTranspose, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(plus, "transpose").source, "table + TK_SCHEDULE");
  EXPECT_EQ(last(plus, "transpose").schedule, "rows=32,cols=128,threads=128");
  // Another shape class has no row: the fields alone, as without '+'.
  r = tk::checks::checkTranspose(nullptr, plus, {2, 256, 128, TK_BF16, 0, true}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(plus, "transpose").source, "TK_SCHEDULE");
  EXPECT_EQ(last(plus, "transpose").schedule, "threads=128");
  // Without '+' the fields replace the row.
  tk::test::ScheduledContext replace("transpose:threads=128");
  ASSERT_TRUE(tk::checks::checkTranspose(nullptr, replace, kTranspose, false).exact());
  EXPECT_EQ(last(replace, "transpose").source, "TK_SCHEDULE");
  EXPECT_EQ(last(replace, "transpose").schedule, "threads=128");
  // A merged schedule the kernel refuses (the row's 128 columns with 256 rows) is TK_SCHEDULE's error, not the table's.
  tk::test::ScheduledContext refused("transpose:+rows=256");
  r = tk::checks::checkTranspose(nullptr, refused, kTranspose, false);
  EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << r.describe();
  EXPECT_NE(r.error.find("TK_SCHEDULE: transpose: a 256 x 128 tile"), std::string::npos) << r.error;

  std::map<std::string, std::string> parsed;
  EXPECT_TRUE(tk::runtime::ScheduleSettings::parse("transpose:+rows=64", parsed).isOk());
  EXPECT_EQ(parsed["transpose"], "+rows=64");
  tk::runtime::Status bare = tk::runtime::ScheduleSettings::parse("transpose:+", parsed);
  EXPECT_FALSE(bare.isOk());
  EXPECT_NE(bare.message().find("OPERATOR:+FIELD=VALUE"), std::string::npos) << bare.message();
  setenv("TK_SCHEDULE", "transpose:+rows=3", 1);
  tk_context bad = nullptr;
  EXPECT_EQ(tk_context_create(&bad), TK_ERROR_INVALID_ARGUMENT);
  unsetenv("TK_SCHEDULE");
  EXPECT_NE(std::string(tk_last_error()).find("TK_SCHEDULE: transpose: rows must be"), std::string::npos)
      << tk_last_error();
  if (bad)
    tk_context_destroy(bad);
}

// A table row that does not fit its call is an internal error naming the
// table (the table is built in: tk tune wrote a row it did not time); a
// malformed table is refused whole.
TEST(Schedules, BadTableRowsAreErrors) {
  TableRestore restore;
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ASSERT_TRUE(tk::checks::checkTranspose(nullptr, ctx, kTranspose, false).exact());
  const std::string problem = last(ctx, "transpose").problem;
  ASSERT_EQ(tk::kernels::replaceTuningTable("transpose\tcpu\t" + problem + "\trows=512\n", "test"), "");
  CheckResult r = tk::checks::checkTranspose(nullptr, ctx, kTranspose, false);
  EXPECT_EQ(r.status, TK_ERROR_INTERNAL);
  EXPECT_NE(r.error.find("tuning table, transpose rows=512: rows must be a power of two from 16 to 256"),
            std::string::npos)
      << r.error;
  const std::string before = tableText(tk::kernels::tuningTableRows());
  EXPECT_NE(tk::kernels::replaceTuningTable("transpose\tcpu\tonly three cells\n", "bad.tsv"), "");
  EXPECT_EQ(tk::kernels::replaceTuningTable("transpose cpu x rows=64\n", "bad.tsv"),
            "bad.tsv line 1: expected operator, target, shape class and schedule separated by tabs");
  EXPECT_EQ(tableText(tk::kernels::tuningTableRows()), before);
  tk_context_destroy(ctx);
}

// The built-in table parses, and each of its rows names an operator and
// fields that parse (tk tune wrote them; a hand edit could break one).
TEST(Schedules, BuiltInTableParses) {
  EXPECT_EQ(tk::kernels::tuningTableProblem(), "");
  for (const auto &row : tk::kernels::tuningTableRows()) {
    const tk::kernels::ScheduledOperator *op = tk::kernels::findScheduledOperator(row.op);
    ASSERT_NE(op, nullptr) << row.op;
    EXPECT_EQ(op->checkFields(row.schedule), "") << row.op << " " << row.schedule;
    EXPECT_TRUE(tk::compiler::findTarget(row.target).has_value()) << row.target;
  }
}

// A search space of every combination, first field outermost, each a
// schedule its operator's fields parse.
TEST(Schedules, EveryCombinationCrossesTheFields) {
  EXPECT_EQ(tk::kernels::everyCombination({{"rows", {1, 2}}, {"threads", {32, 64}}}),
            (std::vector<std::string>{"rows=1,threads=32", "rows=1,threads=64", "rows=2,threads=32",
                                      "rows=2,threads=64"}));
  EXPECT_EQ(tk::kernels::everyCombination({{"rows", {4}}}), std::vector<std::string>{"rows=4"});
  EXPECT_EQ(tk::kernels::everyCombination({{"rows", {}}, {"threads", {32}}}), std::vector<std::string>{});
  const tk::kernels::ScheduledOperator *op = tk::kernels::findScheduledOperator("top2_sum_gate");
  ASSERT_NE(op, nullptr);
  for (const std::string &s : tk::kernels::everyCombination({{"rows", {1, 16}}, {"threads", {32, 256}}}))
    EXPECT_EQ(op->checkFields(s), "") << s;
}

/// Runs `check` with the heuristic's schedule, then with each schedule of
/// `op`'s search space for that call: each is bit-exact, or refused as an
/// invalid TK_SCHEDULE. Returns how many ran.
int everyCandidate(const std::string &op, const Check &check) {
  tk_context ctx;
  EXPECT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ctx->scheduleLog.recordSpaces = true;
  CheckResult base = check(ctx);
  EXPECT_TRUE(base.exact()) << op << ": " << base.describe();
  const std::vector<std::string> space = last(ctx, op).space;
  EXPECT_FALSE(space.empty()) << op;
  tk_context_destroy(ctx);
  int ran = 0;
  for (const std::string &fields : space) {
    tk::test::ScheduledContext candidate(op + ":" + fields);
    CheckResult r = check(candidate);
    if (r.status == TK_ERROR_INVALID_ARGUMENT) {
      EXPECT_NE(r.error.find("TK_SCHEDULE: " + op + ": "), std::string::npos) << fields << ": " << r.error;
      continue;
    }
    EXPECT_TRUE(r.exact()) << op << ":" << fields << ": " << r.describe();
    ++ran;
  }
  std::printf("[ %s ] %d of %zu candidate schedules ran bit-exact\n", op.c_str(), ran, space.size());
  return ran;
}

TEST(Schedules, EveryTransposeCandidateIsBitExact) {
  EXPECT_GT(everyCandidate("transpose", [](tk_context ctx) {
              return tk::checks::checkTranspose(nullptr, ctx, kTranspose, false);
            }),
            4);
}

TEST(Schedules, EveryPerChannelCandidateIsBitExact) {
  for (tk::checks::PerChannelCastCase c : {tk::checks::PerChannelCastCase{512, 1024, 128, TK_BF16, true, false, 1},
                                          tk::checks::PerChannelCastCase{512, 1024, 32, TK_BF16, true, true, 2}}) {
    EXPECT_GT(everyCandidate("per_channel_cast",
                             [c](tk_context ctx) { return tk::checks::checkPerChannelCast(nullptr, ctx, c, false); }),
              2);
    c.swiglu = true, c.clamp = 0.5f;
    EXPECT_GT(everyCandidate("per_channel_cast",
                             [c](tk_context ctx) { return tk::checks::checkPerChannelCast(nullptr, ctx, c, false); }),
              2);
  }
}

TEST(Schedules, EveryPerTokenCandidateIsBitExact) {
  for (tk::checks::PerTokenCastCase c : {tk::checks::PerTokenCastCase{67, 7168, 128, TK_BF16, TK_ROUND_SF, 0, 1},
                                        tk::checks::PerTokenCastCase{33, 2048, 2048, TK_BF16, 0, 0, 2, TK_FORMAT_E5M6},
                                        tk::checks::PerTokenCastCase{45, 2048, 32, TK_BF16, 0, 0, 3, TK_FORMAT_E2M1}})
    EXPECT_GT(everyCandidate("per_token_cast",
                             [c](tk_context ctx) {
                               return tk::checks::checkPerTokenCast(nullptr, ctx, c, tk::checks::makeInput(c), false);
                             }),
              0);
}

TEST(Schedules, EveryLosslessCandidateIsBitExact) {
  EXPECT_GT(everyCandidate("per_block_cast_lossless",
                           [](tk_context ctx) {
                             return tk::checks::checkPerBlockLossless(nullptr, ctx, {256, 2048, 1, 32, 1, 128, true, true, 5},
                                                                     false);
                           }),
            0);
}

TEST(Schedules, EverySwigluCandidateIsBitExact) {
  tk::checks::SwigluCastCase forward{2048, 128};
  forward.weights = true, forward.clamp = 0.5f, forward.count = true, forward.plainRows = 37;
  EXPECT_GT(everyCandidate("swiglu_forward_and_per_token_cast",
                           [forward](tk_context ctx) {
                             return tk::checks::checkSwigluPerTokenCast(nullptr, ctx, forward, false);
                           }),
            0);
  tk::checks::SwigluBackwardCase backward{1024, 128, true, 0.5f};
  backward.tokens = 40, backward.topk = 3, backward.totalExperts = 8, backward.localExperts = 3;
  EXPECT_GT(everyCandidate("swiglu_backward_and_per_token_cast",
                           [backward](tk_context ctx) {
                             return tk::checks::checkSwigluBackward(nullptr, ctx, backward, false);
                           }),
            0);
}

// A call of several kernels is logged, timed and tuned by its main kernel:
// engram_gate_bwd's rows kernel takes TK_SCHEDULE and the table, its value
// kernel (launched after it) the heuristic, and the log keeps the rows
// kernel's choice, search space included.
TEST(Schedules, MultiKernelCallsAreKeyedByTheirMainKernel) {
  const tk::checks::GateBackwardCase c{9, 3, 1000, 4, true, 5};
  tk::test::ScheduledContext experiment("engram_gate_bwd:threads=64");
  CheckResult r = tk::checks::checkGateBackward(nullptr, experiment, c, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  tk::runtime::ScheduleChoice choice = last(experiment, "engram_gate_bwd");
  EXPECT_EQ(choice.source, "TK_SCHEDULE");
  EXPECT_EQ(choice.schedule, "threads=64");
  EXPECT_EQ(choice.problem, "engram_gate_bwd:H=1000");
  EXPECT_GT(everyCandidate("engram_gate_bwd",
                           [c](tk_context ctx) { return tk::checks::checkGateBackward(nullptr, ctx, c, false); }),
            2);
}

// split_v: the rows kernel writes grad_v by streams' columns and no value
// kernel runs (one CPU kernel built, not two), with the value kernel's bits;
// where H is not a multiple of 8 n the call runs the value kernel instead.
TEST(Schedules, GateBackwardSplitsGradVByStreams) {
  auto built = [](tk_context ctx) { return ctx->cpuCache.size(); };
  for (const char *schedule : {"engram_gate_bwd:split_v=1", "engram_gate_bwd:split_v=1,stages=1"}) {
    tk::test::ScheduledContext split(schedule);
    CheckResult r = tk::checks::checkGateBackward(nullptr, split, {33, 4, 2048, 8, true, 4}, false);
    EXPECT_TRUE(r.exact()) << schedule << ": " << r.describe();
    EXPECT_EQ(built(split), 1u) << schedule << ": the rows kernel alone";
    EXPECT_NE(last(split, "engram_gate_bwd").schedule.find("split_v=1"), std::string::npos);
  }
  tk::test::ScheduledContext unsplittable("engram_gate_bwd:split_v=1");
  CheckResult r = tk::checks::checkGateBackward(nullptr, unsplittable, {9, 3, 1000, 4, true, 5}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(built(unsplittable), 2u) << "H = 1000, n = 3: rows and value kernels";
  using tk::kernels::engram::gateBackwardSplitsValue;
  EXPECT_TRUE(gateBackwardSplitsValue(7168, 4));
  EXPECT_FALSE(gateBackwardSplitsValue(1000, 3));
  EXPECT_FALSE(gateBackwardSplitsValue(64, 0));
}

// fused: one kernel over every stream of a block's tokens, with the bits of
// the rows and value kernels on the CPU path (n = 4 and 3, strided k and v, a
// last block with fewer tokens, P > T, H not a multiple of 8), whole rows and
// in chunks (256 columns: 8 and 2 of them; where none divides H, the whole
// row), the partials in registers and in shared memory; a schedule with one
// stage, chunk or shared_partials without fused, fused with split_v and a
// chunk of 3 columns a thread are refused, and partials past the registers
// run the rows and value kernels.
TEST(Schedules, GateBackwardFusesTheStreams) {
  const std::vector<tk::checks::GateBackwardCase> cases = {
      {33, 4, 2048, 8, true, 4}, {9, 3, 1000, 4, true, 5}, {5, 4, 512, 7, false, 6}, {11, 2, 1004, 3, true, 7}};
  for (const tk::checks::GateBackwardCase &c : cases)
    for (const std::string fields : {"", "threads=128,", "chunk=256,", "threads=128,chunk=2048,", "shared_partials=1,",
                                     "shared_partials=1,chunk=256,"}) {
      const std::string threads = fields.find("threads") == std::string::npos ? "" : "threads=128,";
      tk::test::ScheduledContext two("engram_gate_bwd:" + threads + "stages=2"),
          fused("engram_gate_bwd:" + fields + "stages=2,fused=1");
      CheckResult a = tk::checks::checkGateBackward(nullptr, two, c, false),
                  b = tk::checks::checkGateBackward(nullptr, fused, c, false);
      EXPECT_TRUE(b.exact()) << fields << tk::checks::describe(c) << ": " << b.describe();
      // In chunks the fused kernel adds dg's products in another order (a chunk-wide tile of sums, reduced
      // once); whole rows keep the rows kernel's order, and its bits.
      tk::kernels::engram::GateBackwardConfig config;
      config.hidden = c.hidden;
      config.chunk = fields.find("chunk=256") != std::string::npos    ? 256
                     : fields.find("chunk=2048") != std::string::npos ? 2048
                                                                      : 0;
      if (config.chunkColumns() == c.hidden)
        EXPECT_EQ(a.digest, b.digest) << fields << tk::checks::describe(c) << ": fused differs from rows + value";
      EXPECT_EQ(static_cast<tk_context>(fused)->cpuCache.size(), 1u) << "one kernel";
      EXPECT_NE(last(fused, "engram_gate_bwd").schedule.find("fused=1"), std::string::npos);
    }
  for (auto [refused, says] : std::vector<std::pair<const char *, const char *>>{
           {"engram_gate_bwd:stages=1,fused=1", "stages >= 2"},
           {"engram_gate_bwd:chunk=256", "fused kernel's"},
           {"engram_gate_bwd:shared_partials=1", "fused kernel's"},
           {"engram_gate_bwd:fused=1,split_v=1", "choose one"},
           {"engram_gate_bwd:fused=1,threads=512,chunk=1536", "power of two"}}) {
    tk::test::ScheduledContext ctx(refused);
    CheckResult r = tk::checks::checkGateBackward(nullptr, ctx, {5, 4, 6144, 7, false, 6}, false);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << refused;
    EXPECT_NE(r.error.find(says), std::string::npos) << refused << ": " << r.error;
  }
  // Partials past the registers (4 x 2048 on 32 threads: 256 a thread): the rows and value kernels at their
  // heuristic, logged as the heuristic's choice.
  tk::test::ScheduledContext tooMany("engram_gate_bwd:fused=1,threads=32,chunk=512");
  CheckResult r = tk::checks::checkGateBackward(nullptr, tooMany, {5, 4, 2048, 7, false, 6}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(static_cast<tk_context>(tooMany)->cpuCache.size(), 2u) << "rows and value kernels";
  EXPECT_EQ(last(tooMany, "engram_gate_bwd").schedule, "");
  EXPECT_EQ(last(tooMany, "engram_gate_bwd").source, "heuristic");
}

// tk tune's spaces for the gate leave out the pipelines whose shared rows
// pass the target's limit: at H = 12288 the forward's 3 stages (225 KB) fit
// sm_90a's 227 KB, not sm_80's 163 KB; at H = 7168 the backward's 3 stages
// (172 KB) likewise, and the fused backward's shared partials.
TEST(Schedules, EngramGateSpacesKeepToTheTargetsSharedMemory) {
  using namespace tk::kernels::engram;
  const tk::compiler::Target sm80 = *tk::compiler::findTarget("sm_80"), sm90 = *tk::compiler::findTarget("sm_90a");
  auto has = [](const std::vector<std::string> &space, const std::string &field) {
    return std::any_of(space.begin(), space.end(),
                       [&](const std::string &s) { return s.find(field) != std::string::npos; });
  };
  GateForwardConfig f;
  f.hidden = 12288;
  EXPECT_TRUE(has(gateForwardSchedule().searchSpace(f, sm80), "stages=2"));
  EXPECT_FALSE(has(gateForwardSchedule().searchSpace(f, sm80), "stages=3"));
  EXPECT_TRUE(has(gateForwardSchedule().searchSpace(f, sm90), "stages=3"));
  GateBackwardConfig b;
  b.hidden = 7168;
  EXPECT_TRUE(has(gateBackwardSchedule().searchSpace(b, sm80), "stages=2"));
  EXPECT_FALSE(has(gateBackwardSchedule().searchSpace(b, sm80), "stages=3"));
  EXPECT_TRUE(has(gateBackwardSchedule().searchSpace(b, sm90), "stages=3"));
  // The fused kernel with its partials in shared memory (2 stages: 224 KB at 7168) fits sm_90a only.
  b.streams = 4;
  auto both = [](const std::vector<std::string> &space, const std::string &one, const std::string &other) {
    return std::any_of(space.begin(), space.end(), [&](const std::string &s) {
      return s.find(one) != std::string::npos && s.find(other) != std::string::npos;
    });
  };
  const std::vector<std::string> space90 = gateBackwardSchedule().searchSpace(b, sm90),
                                 space80 = gateBackwardSchedule().searchSpace(b, sm80);
  EXPECT_TRUE(both(space90, "stages=2", "shared_partials=1"));
  EXPECT_FALSE(both(space90, "stages=3", "shared_partials=1"));
  EXPECT_FALSE(has(space80, "shared_partials=1"));
  EXPECT_TRUE(both(space80, "stages=2", "fused=1"));
  // Every fused entry passes the schedule's checks and is spelt once.
  for (const std::vector<std::string> *space : {&space90, &space80}) {
    for (const std::string &fields : *space) {
      GateBackwardConfig f = b;
      EXPECT_EQ(gateBackwardSchedule().spec().parse(fields, f), "") << fields;
      EXPECT_EQ(gateBackwardSchedule().checkFields(fields), "") << fields;
      EXPECT_EQ(std::count(space->begin(), space->end(), fields), 1) << fields;
    }
  }
}

// The one-CTA-per-row kernel and the pipelined one (stages, rows) at every
// candidate: within the forward's tolerances, and out the same bits with and
// without the statistics. Strided k and v, n = 3, a last CTA with fewer tokens.
TEST(Schedules, EveryEngramGateForwardCandidateChecks) {
  const tk::checks::GateForwardCase c{37, 3, 1000, true, true, 4};
  EXPECT_GT(everyCandidate("engram_gate_fwd",
                           [c](tk_context ctx) { return tk::checks::checkGateForward(nullptr, ctx, c, false); }),
            20);
}

// The gate's search space: tokens per CTA and threads, with the warps splitting a CTA's tokens (warp_rows=1, a
// token's reductions inside one warp) or spreading each token's row. Group limiting (the (rows, G, epg) tile),
// shared slots through a replica map, padded rows and a last CTA with fewer tokens.
TEST(Schedules, EveryTop2SumGateCandidateChecks) {
  tk::checks::Top2SumGateCase c{37, 256, 8, 2, TK_SCORING_SOFTMAX, 1, 3};
  c.groups = 8, c.topkGroups = 4, c.replicas = 5;
  EXPECT_GT(everyCandidate("top2_sum_gate",
                           [c](tk_context ctx) { return tk::checks::checkTop2SumGate(nullptr, ctx, c, false); }),
            20);
  // The heuristic's warp per token for many tokens is a GPU schedule: the CPU path keeps the call's default.
  tk::test::ScheduledContext heuristic("");
  c.tokens = 3000;
  CheckResult r = tk::checks::checkTop2SumGate(nullptr, heuristic, c, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(heuristic, "top2_sum_gate").source, "heuristic");
  EXPECT_FALSE(static_cast<tk_context>(heuristic)->cpuCache.configs().empty());
  for (const std::string &config : static_cast<tk_context>(heuristic)->cpuCache.configs())
    EXPECT_EQ(config.find("warp_rows"), std::string::npos) << config;
}

// Quotients by multiply and shift (magic=1) against hardware division: i64 ids up to n = 2^62 + 12345 over 7 EP
// ranks (a 2^59-scale R), i32 ids with R Tp near INT32_MAX, one TP rank (the divisor 1, the dividend itself); ids
// below -1 and past n too (the check draws some).
TEST(Schedules, EveryMaskIndicesCandidateIsBitExact) {
  for (tk::checks::MaskIndicesCase c : {tk::checks::MaskIndicesCase{61, 5, (int64_t(1) << 62) + 12345, 7, 3, 1},
                                        tk::checks::MaskIndicesCase{61, 5, 2147483000, 3, 1, 0, TK_I32, 2},
                                        tk::checks::MaskIndicesCase{61, 5, 715827000, 1, 3, 2, TK_I32, 3},
                                        tk::checks::MaskIndicesCase{97, 6, 256, 8, 4, 3, TK_I64, 4}})
    EXPECT_GT(everyCandidate("mask_indices_by_tp",
                             [c](tk_context ctx) { return tk::checks::checkMaskIndices(nullptr, ctx, c, false); }),
              10);
}

TEST(Schedules, EveryReduceFusedCandidateIsBitExact) {
  // K = 9 with x_sf: the search space's tiles, launch bounds (which change the registers, not the result) and the
  // rolled slot loop (the same FMAs in the same order); then those on slots that name no row, non-finite values and
  // underflowing products.
  const tk::checks::ReduceFusedCase scaled{120, 9, 256, 64, 512, TK_F32, true, true, true, false, 3};
  EXPECT_GT(everyCandidate("reduce_fused",
                           [&](tk_context ctx) { return tk::checks::checkReduceFused(nullptr, ctx, scaled, false); }),
            4);
  const tk::checks::ReduceFusedCase edges{120, 8, 72, 8, 256, TK_BF16, false, true, false, true, 4};
  for (const char *bounds : {"blocks=2", "blocks=3", "rolled=1", "rolled=1,cols=8192,threads=128", "rolled=1,skip=1",
                             "rolled=1,skip=1,threads=128"}) {
    tk::test::ScheduledContext ctx(std::string("reduce_fused:") + bounds);
    CheckResult r = tk::checks::checkReduceFused(nullptr, ctx, edges, false);
    EXPECT_TRUE(r.exact()) << bounds << ": " << r.describe();
  }
}

TEST(Schedules, EveryExpandCandidateIsBitExact) {
  // Two kernels or one (merged: the copy's blocks, then the padding's) at every tile, and one token per CTA with
  // the slots that name no position skipped by a branch (skip), with and without merged: every byte of the poisoned
  // output, with slots naming positions past M or other negatives; then merged with each scale-factor layout
  // (row-major f32, column-major f32 and packed, whose padding is written element by element), H = 2048 and 7168
  // (224 f32 factors at C = 32: more than one step of the factors' tile, the last one partial), where the call
  // builds one kernel, the merged one carrying the factors; with several tiles of padding positions a CTA
  // (pad_rows), the last padding CTA past M.
  using Sf = tk::checks::ExpandCase::Sf;
  const tk::checks::ExpandCase edges{150, 9, 72, 8, 576, TK_BF16, Sf::None, 128, true, 6};
  EXPECT_GT(everyCandidate("expand_to_fused",
                           [&](tk_context ctx) { return tk::checks::checkExpand(nullptr, ctx, edges, false); }),
            20);
  for (int64_t hidden : {2048, 7168})
    for (auto [perChannels, sf] : std::vector<std::pair<int32_t, Sf>>{
             {32, Sf::RowF32}, {128, Sf::ColF32}, {32, Sf::ColF32}, {32, Sf::ColPacked}})
      for (const char *schedule :
           {"merged=1", "merged=1,rows=1,cols=512", "merged=1,rows=16,cols=512", "merged=1,rows=1,threads=64,skip=1",
            "merged=1,rows=1,threads=64,skip=1,pad_rows=16", "merged=1,rows=4,cols=512,pad_rows=12"}) {
        const tk::checks::ExpandCase c{150, 6, 256, 64, hidden, TK_F8_E4M3, sf, perChannels, true, 7};
        tk::test::ScheduledContext ctx(std::string("expand_to_fused:") + schedule);
        CheckResult r = tk::checks::checkExpand(nullptr, ctx, c, false);
        EXPECT_TRUE(r.exact()) << schedule << " " << tk::checks::describe(c) << ": " << r.describe();
        const std::vector<std::string> built = static_cast<tk_context>(ctx)->cpuCache.configs();
        ASSERT_EQ(built.size(), 1u) << schedule << " " << tk::checks::describe(c);
        EXPECT_NE(built[0].find(",sf="), std::string::npos) << built[0];
        EXPECT_NE(built[0].find("merged=1"), std::string::npos) << built[0];
      }
  // pad_rows (positions per padding CTA) belongs to the merged kernel and steps in whole tiles of rows.
  for (auto [refused, says] : std::vector<std::pair<const char *, const char *>>{
           {"expand_to_fused:pad_rows=16", "needs merged=1"},
           {"expand_to_fused:merged=1,rows=4,cols=512,pad_rows=6", "1 to 64 times the rows per CTA (4), got 6"},
           {"expand_to_fused:merged=1,rows=1,skip=1,pad_rows=65", "1 to 64 times"}}) {
    tk::test::ScheduledContext ctx(refused);
    CheckResult r = tk::checks::checkExpand(nullptr, ctx, edges, false);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << refused;
    EXPECT_NE(r.error.find(says), std::string::npos) << refused << ": " << r.error;
  }
}

TEST(Schedules, EveryFusedMappingCandidateIsBitExact) {
  // Three kernels and merged (each placing CTA sums the counts itself) at every block and thread count: all seven
  // outputs bit for bit, with ids outside [-1, E), exact and upper-bound sizing, 256 and 1024 bins.
  using S = tk::checks::FusedMappingCase::Sizing;
  for (const tk::checks::FusedMappingCase &c :
       {tk::checks::FusedMappingCase{700, 9, 256, 8, 128, S::Exact, true}, {3000, 8, 1000, 1, 64, S::UpperBound}})
    EXPECT_GT(everyCandidate("get_fused_mapping",
                             [&](tk_context ctx) { return tk::checks::checkFusedMapping(nullptr, ctx, c, false); }),
              15)
        << tk::checks::describe(c);
}

/// tk_engram_grad_w_reduce's two gradients (n H each, hidden's then embed's) on the CPU path for a fixed draw.
std::vector<uint32_t> gradWReduceBits(tk_context ctx, int64_t p, int64_t n, int64_t h) {
  const int64_t cols = n * h;
  std::vector<float> partial(p * cols), grads(2 * cols);
  std::vector<uint16_t> weights(2 * cols);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (float &f : partial)
    f = normal(rng);
  for (float &f : grads)
    f = normal(rng);
  for (uint16_t &w : weights) { // bf16: a normal draw's upper half
    const float f = normal(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    w = (uint16_t)(bits >> 16);
  }
  tk::checks::Placement pl{nullptr};
  tk_tensor tp = pl.tensor(partial.data(), TK_F32, {p, n, h}), th = pl.tensor(weights.data(), TK_BF16, {n, h}),
            te = pl.tensor(weights.data() + cols, TK_BF16, {n, h}), gh = pl.tensor(grads.data(), TK_F32, {n, h}),
            ge = pl.tensor(grads.data() + cols, TK_F32, {n, h});
  EXPECT_EQ(tk_engram_grad_w_reduce(ctx, &tp, &th, &te, &gh, &ge, nullptr), TK_SUCCESS) << tk_last_error();
  std::vector<uint32_t> bits(2 * cols);
  std::memcpy(bits.data(), grads.data(), bits.size() * 4);
  return bits;
}

TEST(Schedules, EveryGradWReduceCandidateChecksAndPipelinesSumAsLoops) {
  // Every candidate within the check's tolerance; then each pipelined chunk (its rows through shared memory) gives
  // the bits of the same chunk loaded in the loop: the same sums in the same order. P = 132 (a partial last step),
  // n H = 154 (scalar accesses, a partial CTA), 1 row.
  EXPECT_GT(everyCandidate("engram_grad_w_reduce",
                           [](tk_context ctx) {
                             return tk::checks::checkGradWReduce(nullptr, ctx, {132, 4, 2048}, false);
                           }),
            80);
  for (auto [p, n, h] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{132, 4, 2048}, {33, 2, 77}, {1, 4, 256}})
    for (const std::string chunk :
         {"rows=4,columns=512,threads=128", "rows=1,columns=256,threads=128", "rows=8,columns=256,threads=256"}) {
      tk::test::ScheduledContext loop("engram_grad_w_reduce:" + chunk);
      const std::vector<uint32_t> want = gradWReduceBits(loop, p, n, h);
      for (const char *stages : {",stages=2", ",stages=8"}) {
        tk::test::ScheduledContext piped("engram_grad_w_reduce:" + chunk + stages);
        EXPECT_EQ(gradWReduceBits(piped, p, n, h), want) << chunk << stages << " P=" << p << " n H=" << n * h;
        EXPECT_NE(last(piped, "engram_grad_w_reduce").schedule.find(stages + 1), std::string::npos);
      }
    }
}

TEST(Schedules, EveryHistogramCandidateIsExact) {
  // group_count's and aux_fi's candidates, counting by atomics or by rows (table=1): exact counts and frequencies
  // with ids outside [-1, G) at every tile, 4096 groups, and no token (group_count by rows sums an empty table).
  const tk::checks::HistogramCase aux{1000, 9, 256, 8, 9, true, 5};
  EXPECT_GT(everyCandidate("group_count",
                           [&](tk_context ctx) { return tk::checks::checkHistogram(nullptr, ctx, aux, false); }),
            30);
  for (const tk::checks::HistogramCase &c :
       {tk::checks::HistogramCase{500, 8, 4096, 1, 0, true, 6}, tk::checks::HistogramCase{500, 8, 4096, 1, 8, false, 7},
        tk::checks::HistogramCase{0, 6, 72, 8}}) {
    tk::test::ScheduledContext ctx("group_count:table=1,tile=512");
    CheckResult r = tk::checks::checkHistogram(nullptr, ctx, c, false);
    EXPECT_TRUE(r.exact()) << tk::checks::describe(c) << ": " << r.describe();
    // Two kernels, the rows' and the column sums' (no zeroing, no atomics).
    std::vector<std::string> built = static_cast<tk_context>(ctx)->cpuCache.configs();
    std::sort(built.begin(), built.end());
    const std::string sums = c.auxTopk ? "histogram:sums,width=4096,frequency" : "histogram:sums,width=";
    ASSERT_EQ(built.size(), c.tokens ? 2u : 1u) << tk::checks::describe(c);
    EXPECT_EQ(built.back().rfind(sums, 0), 0u) << built.back();
    if (c.tokens) {
      EXPECT_EQ(built.front().rfind("histogram:rows,bins=4096,width=4096|tile=512", 0), 0u) << built.front();
    }
  }
}

} // namespace

TEST(Schedules, EverySinkhornCandidateChecksAndTheHeuristicIsRolled) {
  // Every candidate (the unrolled form's min_blocks among them: the CPU path has no registers to cap, the same math)
  // within the tolerance.
  EXPECT_GT(everyCandidate("sinkhorn_normalize_bwd",
                           [](tk_context ctx) {
                             return tk::checks::checkSinkhorn(nullptr, ctx, {100, 4, 10, true}, false);
                           }),
            16);
  tk::test::ScheduledContext capped("sinkhorn_normalize_bwd:rolled=0,min_blocks=4");
  CheckResult r = tk::checks::checkSinkhorn(nullptr, capped, {1000, 4, 10, true}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
  EXPECT_EQ(last(capped, "sinkhorn_normalize_bwd").schedule, "min_blocks=4,rolled=0");
  // The heuristic: rolled; the backward 8 matrices of 4 x 4 on 32 threads (timed on an H100 against 32 on 128 and
  // the unrolled form: docs/mhc_kernels.md), the forward 32 on 128; snapshots within 48 KB where one matrix fits.
  using tk::kernels::mhc::SinkhornConfig;
  SinkhornConfig backward, forward;
  backward.backward = true;
  EXPECT_TRUE(backward.isRolled() && forward.isRolled());
  EXPECT_EQ(backward.numRows(), 8);
  EXPECT_EQ(backward.numThreads(), 32);
  // Ten column steps of 16 inputs and 4 reciprocals, nine row steps' 4 reciprocals, a matrix.
  EXPECT_EQ(backward.snapshotBytes(), 8 * (10 * 20 + 9 * 4) * 4);
  EXPECT_EQ(forward.numRows(), 32);
  EXPECT_EQ(forward.numThreads(), 128);
  EXPECT_EQ(forward.snapshotBytes(), 0);
  backward.repeat = 32;
  EXPECT_EQ(backward.numRows(), 8); // 63 steps of 80 bytes: 40320 bytes
  backward.n = 16;
  EXPECT_EQ(backward.numRows(), 1); // 63 steps of 1088 bytes: 68544 bytes for one matrix, over 48 KB
  backward.rolled = 0;
  EXPECT_EQ(backward.snapshotBytes(), 0);
  EXPECT_EQ(backward.numThreads(), 128);
}
