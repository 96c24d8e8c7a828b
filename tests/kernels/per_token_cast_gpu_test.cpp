// per_token_cast on a GPU through the C API, bit-exact against the C++
// reference over the spec's test grid (quant.md 4.1). Skips visibly without
// a CUDA device.
#include "tests/kernels/gpu_suite.h"
#include "bench/per_token_cast_check.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/runtime/Context.h"

#include <gtest/gtest.h>
#include <cstring>
#include <map>

using namespace tk;

namespace {

class PerTokenCastGpu : public GpuSuite<PerTokenCastGpu> {
protected:

  /// Runs every case; inputs are made once per (M, K, dtype, stride).
  void runGrid(tk_context ctx, const std::vector<bench::PerTokenCastCase> &cases) {
    std::map<std::tuple<int64_t, int64_t, int, int64_t>, std::vector<uint8_t>> inputs;
    int passed = 0;
    for (const auto &c : cases) {
      auto key = std::make_tuple(c.m, c.k, (int)c.in, c.xRowStride);
      auto it = inputs.find(key);
      if (it == inputs.end())
        it = inputs.emplace(key, bench::makeInput(c)).first;
      bench::CheckResult r = bench::checkPerTokenCast(session, ctx, c, it->second, false);
      EXPECT_EQ(r.status, TK_SUCCESS) << bench::describe(c) << ": " << r.error;
      EXPECT_EQ(r.outMismatches, 0) << bench::describe(c);
      EXPECT_EQ(r.sfMismatches, 0) << bench::describe(c);
      passed += r.status == TK_SUCCESS && r.outMismatches == 0 && r.sfMismatches == 0;
    }
    std::printf("[ per_token_cast ] %d of %zu cases bit-exact on %s\n", passed, cases.size(),
                session->device().name.c_str());
  }

  /// M x K x {bf16, fp32} x g in {32, 64, 128, K} x `flagSets` x `formats`:
  /// the cast, and for g != K sf_only and precomputed_sf on the same input.
  void castAndVariantsGrid(const std::string &name, const std::vector<tk_format> &formats,
                           const std::vector<uint32_t> &flagSets) {
    tk_context ctx;
    ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
    CaseTally tally;
    for (int64_t m : {4001, 8001})
      for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
        for (tk_dtype in : {TK_BF16, TK_F32})
          for (int64_t g : {32l, 64l, 128l, k})
            for (uint32_t flags : flagSets)
              for (tk_format fmt : formats) {
                bench::PerTokenCastCase c{m, k, g, in, flags, 0, (uint64_t)(m + k + g), fmt};
                auto x = bench::makeInput(c);
                bench::CheckResult r = bench::checkPerTokenCast(session, ctx, c, x, false);
                if (r.status == TK_SUCCESS && g != k)
                  r = bench::checkPerTokenVariants(session, ctx, c, x);
                tally.check(r, bench::describe(c));
              }
    tally.report(name, *session);
    tk_context_destroy(ctx);
  }
};

std::vector<bench::PerTokenCastCase> specGrid(bool roundOffToo) {
  std::vector<bench::PerTokenCastCase> cases;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype in : {TK_F32, TK_BF16})
        for (int64_t g : {32l, 64l, 128l, k}) {
          cases.push_back({m, k, g, in, TK_ROUND_SF});
          cases.push_back({m, k, g, in, TK_ROUND_SF | TK_SF_COL_MAJOR});
          if (roundOffToo)
            cases.push_back({m, k, g, in, 0});
        }
  return cases;
}

TEST_F(PerTokenCastGpu, SpecGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  runGrid(ctx, specGrid(/*roundOffToo=*/true));
  // Group 16 and a non-contiguous input (row stride 2K, spec check 3).
  runGrid(ctx, {{4001, 7168, 16, TK_BF16, TK_ROUND_SF},
                {4001, 7168, 128, TK_BF16, TK_ROUND_SF, 2 * 7168},
                {4001, 576, 64, TK_F32, 0, 2 * 576},
                {4001, 2048, 128, TK_BF16, 0, 2048 + 3}}); // unaligned rows: narrow loads
  tk_context_destroy(ctx);
}

TEST_F(PerTokenCastGpu, Sm80PathWithSoftwareE4M3IsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ctx->targetOverride = compiler::findTarget("sm_80");
  std::vector<bench::PerTokenCastCase> cases;
  for (int64_t k : {576, 7168})
    for (int64_t g : {32l, 128l, k})
      cases.push_back({4001, k, g, TK_BF16, 0});
  cases.push_back({4001, 7168, 128, TK_F32, TK_ROUND_SF | TK_SF_COL_MAJOR});
  runGrid(ctx, cases);
  tk_context_destroy(ctx);
}

// Every ablation (TK_ABLATE: a pass switched off, tk bench's ablation rows)
// still computes the same bits: narrower accesses, software e4m3, one-stage
// pipelines, padded transposes, default layouts with shared-memory relayouts,
// and unfused stages.
TEST_F(PerTokenCastGpu, AblatedKernelsAreBitExact) {
  for (const std::string &pass : compiler::CompileOptions::ablations()) {
    setenv("TK_ABLATE", pass.c_str(), 1);
    tk_context ctx;
    ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
    std::printf("[ TK_ABLATE=%s ]\n", pass.c_str());
    runGrid(ctx, {{4001, 7168, 128, TK_BF16, 0},
                  {4001, 7168, 128, TK_BF16, TK_ROUND_SF | TK_SF_COL_MAJOR},
                  {4001, 2560, 32, TK_F32, TK_ROUND_SF},
                  {4001, 576, 576, TK_BF16, 0},
                  {4001, 2048, 32, TK_BF16, 0, 0, 7, TK_FORMAT_E2M1},
                  {4001, 2048, 2048, TK_BF16, 0, 0, 8, TK_FORMAT_E5M6}});
    tk_context_destroy(ctx);
  }
  unsetenv("TK_ABLATE");
}

// The CPU path (tile-lower-to-cpu) and the GPU path give the same bits for the
// same inputs: the CPU path is a faithful stand-in for the GPU in CI.
TEST_F(PerTokenCastGpu, CpuAndGpuAgreeBitForBit) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int identical = 0, total = 0;
  for (int64_t k : {576, 2560, 7168})
    for (int64_t g : {32l, 128l, k})
      for (uint32_t flags : {0u, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)})
        for (tk_dtype in : {TK_BF16, TK_F32}) {
          bench::PerTokenCastCase c{1001, k, g, in, flags, 0, (uint64_t)(k + g)};
          std::vector<uint8_t> x = bench::makeInput(c);
          // The same call on the CPU path (host tensors) and on the GPU.
          auto run = [&](bench::GpuSession *gpu, std::vector<uint8_t> &out, std::vector<float> &sf) {
            const int64_t kb = (k + g - 1) / g, sfRows = (flags & TK_SF_COL_MAJOR) ? (c.m + 3) / 4 * 4 : c.m;
            const int64_t sf0 = (flags & TK_SF_COL_MAJOR) ? 1 : kb, sf1 = (flags & TK_SF_COL_MAJOR) ? sfRows : 1;
            out.assign(c.m * k, 0);
            sf.assign(kb * sfRows, 0.0f);
            bench::Placement p{gpu};
            void *dx = p.put(x.data(), x.size()), *dout = p.poisoned(out.data(), out.size(), 0xEE),
                 *dsf = p.poisoned(sf.data(), sf.size() * 4, 0);
            tk_tensor tx = p.tensor(dx, in, {c.m, k}), tout = p.tensor(dout, TK_F8_E4M3, {c.m, k}),
                      tsf = p.tensor(dsf, TK_F32, {c.m, kb}, {sf0, sf1});
            tk_status st = tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)g, flags, &tout,
                                             &tsf, nullptr);
            EXPECT_EQ(st, TK_SUCCESS) << tk_last_error();
            p.get(out.data(), dout, out.size());
            p.get(sf.data(), dsf, sf.size() * 4);
          };
          std::vector<uint8_t> cpuOut, gpuOut;
          std::vector<float> cpuSf, gpuSf;
          run(nullptr, cpuOut, cpuSf);
          run(session, gpuOut, gpuSf);
          bool same = cpuOut == gpuOut && std::memcmp(cpuSf.data(), gpuSf.data(), cpuSf.size() * 4) == 0;
          EXPECT_TRUE(same) << bench::describe(c);
          identical += same;
          ++total;
        }
  std::printf("[ per_token_cast ] CPU and GPU bit-identical in %d of %d cases on %s\n", identical, total,
              session->device().name.c_str());
  tk_context_destroy(ctx);
}

// per_token_cast_with_sf_only and per_token_cast_with_precomputed_sf over the
// spec's grid (quant.md 4.3/4.4: plain input, g != K, both flag combinations).
TEST_F(PerTokenCastGpu, SfOnlyAndPrecomputedSfAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype in : {TK_F32, TK_BF16}) {
        std::vector<uint8_t> x;
        for (int64_t g : {32l, 64l, 128l})
          for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)}) {
            bench::PerTokenCastCase c{m, k, g, in, flags};
            if (x.empty())
              x = bench::makeInput(c);
            bench::CheckResult r = bench::checkPerTokenVariants(session, ctx, c, x);
            tally.check(r, bench::describe(c));
          }
      }
  tally.report("per_token_cast variants", *session);
  tk_context_destroy(ctx);
}

// e2m1 output (quant.md 2.2, 4.1): M x K x {bf16, fp32} x g in {32, 64, 128, K}
// x flags (round) and (round, col-major), plus sf_only / precomputed_sf.
TEST_F(PerTokenCastGpu, E2M1SpecGridIsBitExact) {
  castAndVariantsGrid("per_token_cast e2m1", {TK_FORMAT_E2M1},
                      {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)});
}

// E5M6 output (quant.md 4.5): M x K x {bf16, fp32} x flags (round) and
// (T, T, T), g = K, random input.
TEST_F(PerTokenCastGpu, E5M6SpecGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR | TK_PACKED_UE8M0)}) {
          tk::bench::PerTokenCastCase c{m, k, k, in, flags, 0, (uint64_t)(m + k), TK_FORMAT_E5M6};
          tk::bench::CheckResult r = tk::bench::checkPerTokenCast(session, ctx, c, tk::bench::makeInput(c), false);
          tally.check(r, tk::bench::describe(c));
        }
  tally.report("per_token_cast e5m6", *session);
  tk_context_destroy(ctx);
}

// Inputs spanning 40 binades per row: after scaling, many values fall into
// each format's subnormals and below (E5M6: under 2^-14, where step 1 of the
// encode is the fp16 subnormal rounded toward zero, cvt.rz on sm_89+).
TEST_F(PerTokenCastGpu, WideRangeInputsAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  for (tk_format fmt : {TK_FORMAT_E5M6, TK_FORMAT_E4M3, TK_FORMAT_E2M1})
    for (tk_dtype in : {TK_BF16, TK_F32})
      for (uint32_t flags : {0u, (uint32_t)TK_ROUND_SF}) {
        const int64_t k = 2048, g = fmt == TK_FORMAT_E5M6 ? k : fmt == TK_FORMAT_E2M1 ? 32 : 128;
        tk::bench::PerTokenCastCase c{4001, k, g, in, flags, 0, (uint64_t)(7 + flags), fmt};
        c.exponentSpread = 40;
        tally.check(tk::bench::checkPerTokenCast(session, ctx, c, tk::bench::makeInput(c), false),
                    tk::bench::describe(c));
      }
  tally.report("per_token_cast wide-range inputs", *session);
  tk_context_destroy(ctx);
}

// Packed UE8M0 scale factors, the spec's (T, T, T) flags: M x K x {bf16, fp32}
// x g in {32, 64, 128, K} x {e4m3, e2m1}, plus sf_only.
TEST_F(PerTokenCastGpu, PackedUe8m0SpecGridIsBitExact) {
  castAndVariantsGrid("per_token_cast packed UE8M0", {TK_FORMAT_E4M3, TK_FORMAT_E2M1},
                      {(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0)});
}

// Re-quantization (quant.md 4.2) over the spec's grid for e4m3 and e2m1 inputs: M x K x
// g in {32, 128} x input blocks (128, 128), (32, 32) x flags (round) and
// (round, col-major); input scale factors are powers of two with round (as the
// spec's inputs are), and packed UE8M0 words with col.
TEST_F(PerTokenCastGpu, RequantizationIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (int64_t g : {32, 128})
        for (int64_t bIn : {128, 32})
          for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)}) {
            tk::bench::PerTokenCastCase c{m, k, g, TK_BF16, flags, 0, (uint64_t)(m + k + g + bIn)};
            tk::bench::CheckResult r = tk::bench::checkPerTokenRequant(
                session, ctx, c, {bIn, bIn, bool(flags & TK_SF_COL_MAJOR), bool(flags & TK_SF_COL_MAJOR)});
            tally.check(r, tk::bench::describe(c));
          }
  // FP4 input (two codes per byte), to e4m3 and e2m1, with the spec's flags
  // (F, T, F) and (T, T, T) on input and output.
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (int64_t g : {32, 128})
        for (int64_t bIn : {128, 32})
          for (bool ttt : {false, true})
            for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1}) {
              const uint32_t flags = ttt ? TK_ROUND_SF | TK_SF_COL_MAJOR | TK_PACKED_UE8M0 : TK_ROUND_SF;
              tk::bench::PerTokenCastCase c{m, k, g, TK_BF16, flags, 0, (uint64_t)(m + k + g + bIn), fmt};
              tk::bench::CheckResult r =
                  tk::bench::checkPerTokenRequant(session, ctx, c, {bIn, bIn, ttt, ttt, TK_FORMAT_E2M1});
              tally.check(r, "from e2m1 " + tk::bench::describe(c));
            }
  tally.report("per_token_cast re-quantization", *session);
  tk_context_destroy(ctx);
}

TEST_F(PerTokenCastGpu, EmptyInputWritesNothing) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  void *p = session->alloc(16);
  tk_tensor x = bench::deviceTensor(p, TK_BF16, {0, 7168});
  tk_tensor out = bench::deviceTensor(p, TK_F8_E4M3, {0, 7168});
  tk_tensor sf = bench::deviceTensor(p, TK_F32, {0, 56});
  EXPECT_EQ(tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr), TK_SUCCESS);
  tk_context_destroy(ctx);
}

} // namespace
