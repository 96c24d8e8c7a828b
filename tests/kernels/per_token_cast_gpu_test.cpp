// per_token_cast on a GPU beyond its table's grid (checks/per_token_cast_cases.cpp,
// run as Gpu_per_token_cast.TableGrid): the sm_80 path, ablations, CPU and
// GPU agreement, wide-range inputs. Skips visibly without a CUDA device.
#include "tests/kernels/gpu_suite.h"
#include "checks/per_token_cast_check.h"
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
  void runGrid(tk_context ctx, const std::vector<checks::PerTokenCastCase> &cases) {
    std::map<std::tuple<int64_t, int64_t, int, int64_t>, std::vector<uint8_t>> inputs;
    int passed = 0;
    for (const auto &c : cases) {
      auto key = std::make_tuple(c.m, c.k, (int)c.in, c.xRowStride);
      auto it = inputs.find(key);
      if (it == inputs.end())
        it = inputs.emplace(key, checks::makeInput(c)).first;
      checks::GpuSession::Scope caseBuffers(*session);
      checks::CheckResult r = checks::checkPerTokenCast(session, ctx, c, it->second, false);
      EXPECT_EQ(r.status, TK_SUCCESS) << checks::describe(c) << ": " << r.error;
      EXPECT_EQ(r.outMismatches, 0) << checks::describe(c);
      EXPECT_EQ(r.sfMismatches, 0) << checks::describe(c);
      passed += r.status == TK_SUCCESS && r.outMismatches == 0 && r.sfMismatches == 0;
    }
    std::printf("[ per_token_cast ] %d of %zu cases bit-exact on %s\n", passed, cases.size(),
                session->device().name.c_str());
  }
};

TEST_F(PerTokenCastGpu, Sm80PathWithSoftwareE4M3IsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ctx->targetOverride = compiler::findTarget("sm_80");
  std::vector<checks::PerTokenCastCase> cases;
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
          checks::PerTokenCastCase c{1001, k, g, in, flags, 0, (uint64_t)(k + g)};
          std::vector<uint8_t> x = checks::makeInput(c);
          // The same call on the CPU path (host tensors) and on the GPU.
          auto run = [&](checks::GpuSession *gpu, std::vector<uint8_t> &out, std::vector<float> &sf) {
            const int64_t kb = (k + g - 1) / g, sfRows = (flags & TK_SF_COL_MAJOR) ? (c.m + 3) / 4 * 4 : c.m;
            const int64_t sf0 = (flags & TK_SF_COL_MAJOR) ? 1 : kb, sf1 = (flags & TK_SF_COL_MAJOR) ? sfRows : 1;
            out.assign(c.m * k, 0);
            sf.assign(kb * sfRows, 0.0f);
            checks::Placement p{gpu};
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
          EXPECT_TRUE(same) << checks::describe(c);
          identical += same;
          ++total;
        }
  std::printf("[ per_token_cast ] CPU and GPU bit-identical in %d of %d cases on %s\n", identical, total,
              session->device().name.c_str());
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
        tk::checks::PerTokenCastCase c{4001, k, g, in, flags, 0, (uint64_t)(7 + flags), fmt};
        c.exponentSpread = 40;
        tk::checks::GpuSession::Scope caseBuffers(*session);
        tally.check(tk::checks::checkPerTokenCast(session, ctx, c, tk::checks::makeInput(c), false),
                    tk::checks::describe(c));
      }
  tally.report("per_token_cast wide-range inputs", *session);
  tk_context_destroy(ctx);
}

TEST_F(PerTokenCastGpu, EmptyInputWritesNothing) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  void *p = session->alloc(16);
  tk_tensor x = checks::deviceTensor(p, TK_BF16, {0, 7168});
  tk_tensor out = checks::deviceTensor(p, TK_F8_E4M3, {0, 7168});
  tk_tensor sf = checks::deviceTensor(p, TK_F32, {0, 56});
  EXPECT_EQ(tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr), TK_SUCCESS);
  tk_context_destroy(ctx);
}

} // namespace
