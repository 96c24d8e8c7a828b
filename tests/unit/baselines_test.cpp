// The peers' baseline file (../shared/baselines/torch-h200.json) read and
// printed beside tk's rows by `tk bench`.
#include "bench/baselines.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

std::string writeTemp(const std::string &name, const std::string &text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char *kSample = R"({"device": "NVIDIA H200", "torch": "2.11.0+cu130", "copy_gbps": 4276, "rows": [
  {"op": "copy 2GiB", "impl": "torch", "us": 1004.5, "gbps": 4276, "frac": null},
  {"op": "per_token_cast 32768x7168", "impl": "eager", "us": 3033.6, "gbps": 235, "frac": 0.055},
  {"op": "per_token_cast 32768x7168", "impl": "compile", "us": 205.3, "gbps": 3468, "frac": 0.811},
  {"op": "topk_gate 16384x256", "impl": "compile", "us": 599.0, "gbps": 31, "frac": 0.007}]})";

TEST(Baselines, ReadsTheFileAndPrintsEachOpBesideItsTkRow) {
  tk::bench::Baselines b = tk::bench::loadBaselines(writeTemp("baselines.json", kSample));
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_EQ(b.device, "NVIDIA H200");
  EXPECT_EQ(b.copyGbps, 4276);
  ASSERT_EQ(b.rows.size(), 4u);
  EXPECT_EQ(b.rows[2].impl, "compile");
  EXPECT_DOUBLE_EQ(b.rows[2].us, 205.3);

  std::string text = tk::bench::formatBaselines(b, {{"per_token_cast", "32768x7168", "g=128 bf16", 186.1}}, 4212);
  EXPECT_NE(text.find("3033.6"), std::string::npos) << text;
  EXPECT_NE(text.find("16.30x"), std::string::npos) << text; // 3033.6 / 186.1
  EXPECT_NE(text.find("1.10x"), std::string::npos) << text;  // 205.3 / 186.1
  EXPECT_NE(text.find("tk 4212, baseline 4276"), std::string::npos) << text;
  EXPECT_NE(text.find("a group-limited gate: tk's topk_sum_and_topk_group_idx + topk_gate"), std::string::npos)
      << text; // topk_gate: no tk row of its shape, and the reader told where tk's rows are
}

TEST(Baselines, ARowThatDidNotRunIsSaidNotRun) {
  tk::bench::Baselines b = tk::bench::loadBaselines(writeTemp("baselines2.json", kSample));
  std::string text = tk::bench::formatBaselines(b, {}, 4212);
  EXPECT_NE(text.find("(not run: see --only)"), std::string::npos) << text;
}

TEST(Baselines, EveryShippedMatchNamesABenchmarkRow) {
  for (const char *op : {"per_token_cast 32768x7168", "swiglu_fwd+cast 65536x2x2048", "transpose 8x4096x7168 bf16"}) {
    tk::bench::BaselineMatch m = tk::bench::matchBaseline(op);
    EXPECT_FALSE(m.op.empty()) << op << ": " << m.why;
  }
  EXPECT_TRUE(tk::bench::matchBaseline("reduce_fused 8192x8x7168").op.empty());
}

TEST(Baselines, MissingOrMalformedFilesAreSaidNotFatal) {
  tk::bench::Baselines missing = tk::bench::loadBaselines(::testing::TempDir() + "no-such-file.json");
  EXPECT_NE(missing.error.find("no baseline file found"), std::string::npos) << missing.error;
  EXPECT_NE(tk::bench::formatBaselines(missing, {}, 1).find("no baseline file found"), std::string::npos);
  tk::bench::Baselines bad = tk::bench::loadBaselines(writeTemp("bad.json", "{\"rows\": [1, "));
  EXPECT_FALSE(bad.error.empty());
  tk::bench::Baselines noRows = tk::bench::loadBaselines(writeTemp("norows.json", "{\"device\": \"x\"}"));
  EXPECT_NE(noRows.error.find("no \"rows\""), std::string::npos) << noRows.error;
}

} // namespace
