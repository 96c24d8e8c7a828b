// per_token_cast on the CPU path (tile-lower-to-cpu + ExecutionEngine) through
// the C API with host tensors, bit-exact against the C++ reference.
#include "checks/per_token_cast_check.h"
#include "kernels/quant/per_token_cast.h"
#include "tk/tk.h"
#include "tests/kernels/schedule_context.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace tk;
using namespace tk::kernels::quant;

namespace {

tk_tensor host(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  tk_tensor t = checks::deviceTensor(data, dtype, std::move(shape), std::move(strides));
  t.device = TK_DEVICE_CPU;
  return t;
}

/// Runs one case on the CPU; returns the number of differing output bytes and SFs.
std::pair<int64_t, int64_t> runCase(tk_context ctx, const checks::PerTokenCastCase &c) {
  checks::CheckResult r = checks::checkPerTokenCast(nullptr, ctx, c, checks::makeInput(c), false);
  EXPECT_EQ(r.status, TK_SUCCESS) << checks::describe(c) << ": " << r.error;
  return {r.outMismatches, r.sfMismatches};
}

TEST(Cpu_per_token_cast, StridedRowsAndTiesAndExtremes) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  auto [badOut, badSf] = runCase(ctx, {9, 576, 64, TK_BF16, TK_ROUND_SF, 2 * 576});
  EXPECT_EQ(badOut + badSf, 0);
  // Hand-made rows: zeros (clamped scale), ties on the e4m3 grid, huge and tiny values.
  const int64_t k = 128;
  std::vector<float> x(2 * k, 0.0f), sf(2), refSf(2);
  for (int64_t j = 0; j < k; ++j)
    x[k + j] = (j % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f + (j % 16) / 16.0f, (int)(j % 40) - 20);
  x[k + 5] = 3.0e38f;
  std::vector<uint8_t> out(2 * k), refOut(2 * k);
  perTokenCastReference(x.data(), dsl::DType::F32, 2, k, k, k, false, refOut.data(), refSf.data(), 1, 1);
  tk_tensor tx = host(x.data(), TK_F32, {2, k}, {k, 1}), tout = host(out.data(), TK_F8_E4M3, {2, k}, {k, 1}),
            tsf = host(sf.data(), TK_F32, {2, 1}, {1, 1});
  ASSERT_EQ(tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)k, 0, &tout, &tsf, nullptr),
            TK_SUCCESS)
      << tk_last_error();
  EXPECT_EQ(out, refOut);
  EXPECT_EQ(std::memcmp(sf.data(), refSf.data(), 8), 0);
  EXPECT_EQ(out[0], 0x00); // an all-zero row stays zero
  tk_context_destroy(ctx);
}

// E2M1 rounding boundaries through the compiled encoder: with round_sf and a
// row maximum of 6 the scale is 1, so every value reaches the encoder as is.
// Each boundary and code value, its float neighbours, both signs, tiny and
// subnormal values, against the reference encoder.
TEST(Cpu_per_token_cast, E2M1BoundariesAndNeighbours) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<float> row;
  for (float t : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f,
                  1e-42f, 1e-20f, 0.2499f, 0.999f})
    for (float v : {std::nextafter(t, 0.0f), t, std::nextafter(t, 7.0f)})
      for (float s : {1.0f, -1.0f})
        row.push_back(s * std::min(v, 6.0f));
  const int64_t k = 128;
  ASSERT_LE((int64_t)row.size(), k);
  row.resize(k, -0.0f);
  std::vector<uint8_t> out(k / 2), refOut(k / 2);
  float sf = 0, refSf = 0;
  perTokenCastReference(row.data(), dsl::DType::F32, 1, k, k, k, true, refOut.data(), &refSf, 1, 1, Format::E2M1);
  ASSERT_EQ(refSf, 1.0f);
  tk_tensor tx = host(row.data(), TK_F32, {1, k}, {k, 1}), tout = host(out.data(), TK_I8, {1, k / 2}, {k / 2, 1}),
            tsf = host(&sf, TK_F32, {1, 1}, {1, 1});
  ASSERT_EQ(tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E2M1, (int32_t)k, TK_ROUND_SF, &tout, &tsf,
                              nullptr),
            TK_SUCCESS)
      << tk_last_error();
  for (int64_t j = 0; j < k; ++j)
    EXPECT_EQ((out[j / 2] >> (4 * (j % 2))) & 15, (refOut[j / 2] >> (4 * (j % 2))) & 15) << "x = " << row[j];
  EXPECT_EQ(sf, refSf);
  tk_context_destroy(ctx);
}

TEST(Cpu_per_token_cast, MixedDevicesAreRejected) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  alignas(16) static uint16_t x[4 * 128];
  alignas(16) static uint8_t out[4 * 128];
  alignas(16) static float sf[4];
  tk_tensor tx = host(x, TK_BF16, {4, 128}, {128, 1}), tout = host(out, TK_F8_E4M3, {4, 128}, {128, 1}),
            tsf = host(sf, TK_F32, {4, 1}, {1, 1});
  tout.device = TK_DEVICE_CUDA;
  EXPECT_EQ(tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &tout, &tsf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("must all be in host memory or all on the CUDA device"), std::string::npos)
      << tk_last_error();
  tk_context_destroy(ctx);
}

} // namespace

namespace {

} // namespace

namespace {

// E5M6 output (quant.md 4.5): one group per row, 8 codes per 3 words; random
// rows and the spec's special rows (2^-20, 2^-14 * 63/64, 2^-14 with a last
// column of 65024, so the row scale is 1 and the values sit at the
// subnormal/normal boundary of E5M6).
TEST(Cpu_per_token_cast, E5M6OutputIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int cases = 0;
  for (int64_t k : {576, 2048, 7168})
    for (tk_dtype in : {TK_BF16, TK_F32})
      for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR | TK_PACKED_UE8M0)}) {
        tk::checks::PerTokenCastCase c{37, k, k, in, flags, 0, (uint64_t)k, TK_FORMAT_E5M6};
        auto x = tk::checks::makeInput(c);
        for (int special = 0; special <= 3; ++special) {
          if (special) // constant rows, last column 65024
            for (int64_t i = 0; i < c.m; ++i)
              for (int64_t j = 0; j < k; ++j) {
                float v = j == k - 1 ? 65024.0f : special == 1 ? 0x1p-20f : special == 2 ? 0x1p-14f * 63 / 64 : 0x1p-14f;
                if (in == TK_F32) {
                  std::memcpy(&x[(i * k + j) * 4], &v, 4);
                } else {
                  uint16_t h = tk::kernels::quant::f32ToBf16(v);
                  std::memcpy(&x[(i * k + j) * 2], &h, 2);
                }
              }
          tk::checks::CheckResult r = tk::checks::checkPerTokenCast(nullptr, ctx, c, x, false);
          EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
          EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << tk::checks::describe(c) << " special " << special;
          ++cases;
        }
      }
  std::printf("[ per_token_cast ] %d CPU e5m6 cases compared\n", cases);
  tk_context_destroy(ctx);
}

// Rows spanning 40 binades: many scaled values land in each format's
// subnormals and below (the GPU suite runs the same cases at 4001 rows).
TEST(Cpu_per_token_cast, WideRangeInputsAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (tk_format fmt : {TK_FORMAT_E5M6, TK_FORMAT_E4M3, TK_FORMAT_E2M1})
    for (tk_dtype in : {TK_BF16, TK_F32})
      for (uint32_t flags : {0u, (uint32_t)TK_ROUND_SF}) {
        const int64_t k = 2048, g = fmt == TK_FORMAT_E5M6 ? k : fmt == TK_FORMAT_E2M1 ? 32 : 128;
        tk::checks::PerTokenCastCase c{37, k, g, in, flags, 0, (uint64_t)(7 + flags), fmt};
        c.exponentSpread = 40;
        tk::checks::CheckResult r = tk::checks::checkPerTokenCast(nullptr, ctx, c, tk::checks::makeInput(c), false);
        EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
        EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << tk::checks::describe(c);
      }
  tk_context_destroy(ctx);
}

// Packed UE8M0 scale factors (col, round, packed: the spec's (T, T, T) flags):
// cast, sf_only and the e2m1 output, with partial last words (Kb % 4 != 0).
TEST(Cpu_per_token_cast, PackedUe8m0ScaleFactorsAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const uint32_t ttt = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;
  int cases = 0;
  for (int64_t m : {1, 37})
    for (int64_t k : {576, 2560, 7168})
      for (int64_t g : {32l, 128l, k})
        for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1}) {
          tk::checks::PerTokenCastCase c{m, k, g, TK_BF16, ttt, 0, (uint64_t)(m + k + g), fmt};
          auto x = tk::checks::makeInput(c);
          tk::checks::CheckResult r = tk::checks::checkPerTokenCast(nullptr, ctx, c, x, false);
          EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
          EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << tk::checks::describe(c);
          if (g != k) {
            r = tk::checks::checkPerTokenVariants(nullptr, ctx, c, x);
            EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << "sf_only " << tk::checks::describe(c);
          }
          ++cases;
        }
  std::printf("[ per_token_cast ] %d CPU packed-UE8M0 cases compared\n", cases);
  tk_context_destroy(ctx);
}

// Re-quantization (quant.md 4.2): e4m3 input with (1, g_in), (32, 32) and
// (128, 128) scale blocks, row- and column-major input scale factors.
TEST(Cpu_per_token_cast, RequantizationIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int cases = 0;
  for (int64_t m : {1, 37, 130})
    for (int64_t k : {576, 2560, 7168})
      for (int64_t g : {32, 128})
        for (auto [bIn, gIn] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {32, 32}, {128, 128}})
          for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR), 0u}) {
            tk::checks::PerTokenCastCase c{m, k, g, TK_BF16, flags, 0, (uint64_t)(m + k + g)};
            tk::checks::CheckResult r = tk::checks::checkPerTokenRequant(nullptr, ctx, c, {bIn, gIn, flags == 0});
            EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << " in block " << bIn << "x" << gIn << ": "
                                            << r.error;
            EXPECT_EQ(r.outMismatches, 0) << tk::checks::describe(c) << " in block " << bIn << "x" << gIn;
            EXPECT_EQ(r.sfMismatches, 0) << tk::checks::describe(c) << " in block " << bIn << "x" << gIn;
            ++cases;
          }
  // Packed UE8M0 input scale factors (the spec builds quantized inputs with (T, T, T)).
  for (int64_t k : {576, 7168})
    for (auto [bIn, gIn] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {32, 32}, {128, 128}}) {
      tk::checks::PerTokenCastCase c{37, k, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0, 0, 5};
      tk::checks::CheckResult r = tk::checks::checkPerTokenRequant(nullptr, ctx, c, {bIn, gIn, true, /*sfPacked=*/true});
      EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
      EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << "packed input " << tk::checks::describe(c);
      ++cases;
    }
  // FP4 input (two codes per byte, the logical width twice the stored one) to
  // e4m3 and e2m1, fp32 and packed input scale factors, a row stride beyond K / 2.
  for (int64_t k : {576, 2048})
    for (auto [bIn, gIn] : std::vector<std::pair<int64_t, int64_t>>{{1, 32}, {32, 32}, {128, 128}})
      for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1})
        for (bool packed : {false, true}) {
          const uint32_t flags = packed ? TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0 : TK_ROUND_SF;
          tk::checks::PerTokenCastCase c{37, k, 32, TK_BF16, flags, packed ? 0 : k + 64, 11, fmt};
          tk::checks::CheckResult r =
              tk::checks::checkPerTokenRequant(nullptr, ctx, c, {bIn, gIn, packed, packed, TK_FORMAT_E2M1});
          EXPECT_EQ(r.status, TK_SUCCESS) << "from e2m1 " << tk::checks::describe(c) << ": " << r.error;
          EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << "from e2m1 " << tk::checks::describe(c);
          ++cases;
        }
  std::printf("[ per_token_cast ] %d CPU re-quantization cases compared\n", cases);
  tk_context_destroy(ctx);
}

} // namespace

namespace {

// e2m1 output (two codes per byte): cast, sf_only and precomputed_sf, and
// re-quantization from e4m3 to e2m1.
TEST(Cpu_per_token_cast, E2M1OutputIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int cases = 0;
  for (int64_t m : {1, 37})
    for (int64_t k : {576, 2048, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : {16l, 32l, 128l, k})
          for (uint32_t flags : {0u, (uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)}) {
            tk::checks::PerTokenCastCase c{m, k, g, in, flags, 0, (uint64_t)(m * 5 + k), TK_FORMAT_E2M1};
            auto x = tk::checks::makeInput(c);
            tk::checks::CheckResult r = tk::checks::checkPerTokenCast(nullptr, ctx, c, x, false);
            EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
            EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << tk::checks::describe(c);
            if (g != k) {
              r = tk::checks::checkPerTokenVariants(nullptr, ctx, c, x);
              EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
              EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << "variants " << tk::checks::describe(c);
              r = tk::checks::checkPerTokenRequant(nullptr, ctx, c, {32, 32});
              EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
              EXPECT_EQ(r.outMismatches + r.sfMismatches, 0) << "requant " << tk::checks::describe(c);
            }
            ++cases;
          }
  std::printf("[ per_token_cast ] %d CPU e2m1 cases compared\n", cases);
  tk_context_destroy(ctx);
}

} // namespace

namespace {

// Schedules: a persistent grid, a tile.pipeline (row tiles per CTA, copies
// ahead; the CPU path runs the pipelined schedule sequentially, so its
// indexing is checked here) and rows per block, results unchanged, over row
// counts that leave partial CTAs, strided rows and e2m1 outputs; values out
// of range and schedules that do not fit are C API errors.
TEST(Cpu_per_token_cast, SchedulesAreBitExact) {
  for (const char *schedule : {"persistent=1", "persistent=3", "stages=1,tiles=1", "stages=2,tiles=3",
                               "stages=4,tiles=2", "stages=8,tiles=5", "rows=1", "rows=3", "rows=8"}) {
    tk::test::ScheduledContext ctx(std::string("per_token_cast:") + schedule);
    for (checks::PerTokenCastCase c : {checks::PerTokenCastCase{37, 7168, 128, TK_BF16, 0, 0, 3},
                                      checks::PerTokenCastCase{21, 2560, 32, TK_F32, TK_ROUND_SF, 2600, 4},
                                      checks::PerTokenCastCase{9, 576, 576, TK_BF16, TK_ROUND_SF, 0, 5},
                                      checks::PerTokenCastCase{13, 2048, 32, TK_BF16, 0, 0, 6, TK_FORMAT_E2M1}}) {
      auto [badOut, badSf] = runCase(ctx, c);
      EXPECT_EQ(badOut, 0) << schedule << " " << checks::describe(c);
      EXPECT_EQ(badSf, 0) << schedule << " " << checks::describe(c);
    }
  }
  for (const char *bad : {"persistent=0", "persistent=33", "persistent=4x", "stages=9", "tiles=0", "rows=0",
                          "rows=65", "run=4"}) {
    setenv("TK_SCHEDULE", (std::string("per_token_cast:") + bad).c_str(), 1);
    tk_context ctx = nullptr;
    EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(tk_last_error()).find("TK_SCHEDULE: per_token_cast: "), std::string::npos)
        << tk_last_error();
    unsetenv("TK_SCHEDULE");
  }
  auto refused = [](const char *schedule, checks::PerTokenCastCase c, const std::string &expected) {
    tk::test::ScheduledContext ctx(std::string("per_token_cast:") + schedule);
    checks::CheckResult r = checks::checkPerTokenCast(nullptr, ctx, c, checks::makeInput(c), false);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << schedule;
    EXPECT_NE(r.error.find(expected), std::string::npos) << schedule << ": " << r.error;
  };
  // 3 rows of a whole-row group of 7168: over 16384 elements.
  refused("rows=3", {4, 7168, 7168, TK_BF16, 0}, "3 rows of 7168 columns exceed 16384 elements");
  refused("persistent=2,stages=2,tiles=2", {4, 576, 128, TK_BF16, 0}, "separate schedules: set one");
}

// TK_SCHEDULE applies to every call of an operator: fields that do not shape
// a call's kernel (a pipeline for a quantized input's, run for outputs other
// than E5M6) are left aside there, not refused.
TEST(Cpu_per_token_cast, FieldsThatDoNotApplyAreLeftAside) {
  tk::test::ScheduledContext ctx("per_token_cast:stages=2,tiles=3,run=32");
  checks::PerTokenCastCase c{37, 2048, 128, TK_BF16, 0, 0, 3};
  auto [badOut, badSf] = runCase(ctx, c);
  EXPECT_EQ(badOut + badSf, 0);
  checks::CheckResult r = checks::checkPerTokenRequant(nullptr, ctx, c, {32, 32});
  EXPECT_EQ(r.status, TK_SUCCESS) << r.error;
  EXPECT_EQ(r.outMismatches + r.sfMismatches, 0);
}

} // namespace
