//===- per_token_cast_cases.cpp - the per-token casts' tests and rows -----===//
//
// per_token_cast (quant.md 4.1, 4.2, 4.5), per_token_cast_with_sf_only (4.3)
// and per_token_cast_with_precomputed_sf (4.4).
//===----------------------------------------------------------------------===//
#include "checks/operator_table.h"
#include "kernels/quant/formats.h"

#include <algorithm>
#include <array>

namespace tk::checks {

namespace {

using kernels::quant::ceilDiv;
using kernels::quant::alignUp;

/// What a case runs on one input.
enum class Run {
  Cast,            ///< tk_per_token_cast
  CastAndVariants, ///< the cast, then (g != K) sf_only and precomputed_sf on the same input
  Variants,        ///< sf_only and precomputed_sf
  Requant,         ///< the cast of a quantized input (quant.md 4.2)
  TimedCast,       ///< the cast timed over rotated buffers (the benchmark's rows); checked first when `check`
  TimedSfOnly,
  TimedPrecomputedSf,
};

struct PerTokenRun {
  PerTokenCastCase c;
  Run run = Run::Cast;
  QuantizedInput in; ///< Requant's input
  bool check = true; ///< the Timed* runs: check the case before timing it
};

std::string describe(const PerTokenRun &r) {
  std::string d = describe(r.c);
  if (r.run == Run::Requant) {
    const std::string from = std::string(r.in.fmt == TK_FORMAT_E2M1 ? " e2m1(" : " e4m3(") +
                             std::to_string(r.in.blockM) + "x" + std::to_string(r.in.blockK) + ")";
    d.replace(d.find(r.c.in == TK_BF16 ? " bf16" : " f32"), r.c.in == TK_BF16 ? 5 : 4, from);
  }
  return d + (r.run == Run::CastAndVariants ? " +variants" : r.run == Run::Variants ? " variants" : "");
}

/// Times one case with inputs and outputs rotated over enough copies that a
/// pass over all of them is at least 3x the L2 cache (small shapes are not
/// served from L2); the bytes are quant.md §0's: cast s_in + s_out + sf/g,
/// sf only s_in + sf/g, precomputed s_in + 4/g + s_out.
CheckResult timeRotated(GpuSession *gpu, tk_context ctx, const PerTokenRun &r) {
  const PerTokenCastCase &c = r.c;
  CheckResult result;
  if (r.check) {
    auto x = sharedInput(c);
    result = r.run == Run::TimedCast ? checkPerTokenCast(gpu, ctx, c, *x, false)
                                     : checkPerTokenVariants(gpu, ctx, c, *x);
    if (!result.exact() || !gpu)
      return result;
  }
  result.unchecked = !r.check;
  GpuSession::Scope scope(*gpu);
  const int64_t elt = c.in == TK_BF16 ? 2 : 4, kb = ceilDiv(c.k, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR;
  const int64_t sfRows = col ? alignUp(c.m, 4) : c.m, sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  const size_t xBytes = c.m * c.k * elt, outBytes = c.m * c.k, sfBytes = kb * sfRows * 4;
  result.bytes = (double)c.m * c.k * (elt + (r.run == Run::TimedSfOnly ? 0 : 1)) + (double)c.m * kb * 4;
  size_t perSet = xBytes + outBytes + sfBytes;
  int sets = (int)std::max<size_t>(1, (3ull * gpu->device().l2Bytes + perSet - 1) / perSet);
  std::vector<std::array<tk_tensor, 3>> tensors;
  for (int i = 0; i < sets; ++i) {
    void *x = gpu->alloc(xBytes), *out = gpu->alloc(outBytes), *sf = gpu->alloc(sfBytes);
    gpu->fill(x, 0x3C, xBytes); // 1.17 in bf16, 0.0115 in fp32: a realistic, finite input
    tensors.push_back({deviceTensor(x, c.in, {c.m, c.k}), deviceTensor(out, TK_F8_E4M3, {c.m, c.k}),
                       deviceTensor(sf, TK_F32, {c.m, kb}, {sf0, sf1})});
  }
  int next = 0;
  auto call = [&] {
    auto &t = tensors[next++ % sets];
    if (r.run == Run::TimedCast)
      return tk_per_token_cast(ctx, &t[0], nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags, &t[1], &t[2],
                               nullptr);
    if (r.run == Run::TimedSfOnly)
      return tk_per_token_cast_with_sf_only(ctx, &t[0], nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags,
                                            &t[2], nullptr);
    return tk_per_token_cast_with_precomputed_sf(ctx, &t[0], TK_FORMAT_E4M3, (int32_t)c.group, &t[2], 0, &t[1],
                                                 nullptr);
  };
  if (!result.called(call())) // a call that fails (a schedule the kernel refuses) is not timed
    return result;
  result.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return result;
}

CheckResult checkRun(GpuSession *gpu, tk_context ctx, const PerTokenRun &r, bool time) {
  switch (r.run) {
  case Run::Requant: return checkPerTokenRequant(gpu, ctx, r.c, r.in, time);
  case Run::TimedCast:
  case Run::TimedSfOnly:
  case Run::TimedPrecomputedSf:
    if (gpu && time)
      return timeRotated(gpu, ctx, r);
    [[fallthrough]];
  case Run::Cast: return checkPerTokenCast(gpu, ctx, r.c, *sharedInput(r.c), time);
  case Run::Variants: return checkPerTokenVariants(gpu, ctx, r.c, *sharedInput(r.c));
  case Run::CastAndVariants: {
    auto x = sharedInput(r.c);
    CheckResult result = checkPerTokenCast(gpu, ctx, r.c, *x, time);
    if (result.status == TK_SUCCESS && r.c.group != r.c.k)
      result = checkPerTokenVariants(gpu, ctx, r.c, *x);
    return result;
  }
  }
  return {};
}

std::vector<int64_t> specMs() { return {4001, 8001}; }
// Functions, not globals: tables are built during static initialization
// (the test binaries register a test per table before main).
std::vector<int64_t> specKs() { return {576, 2048, 2560, 3072, 4096, 6144, 7168}; }
constexpr uint32_t kTTT = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;

/// quant.md 4.1's grid: M x K x {fp32, bf16} x g in {32, 64, 128, K} x the
/// flags (round), (col, round) and, with `roundOffToo`, none.
std::vector<PerTokenRun> castGrid(bool roundOffToo) {
  std::vector<PerTokenRun> runs;
  for (int64_t m : specMs())
    for (int64_t k : specKs())
      for (tk_dtype in : {TK_F32, TK_BF16})
        for (int64_t g : {32l, 64l, 128l, k}) {
          runs.push_back({{m, k, g, in, TK_ROUND_SF}});
          runs.push_back({{m, k, g, in, TK_ROUND_SF | TK_SF_COL_MAJOR}});
          if (roundOffToo)
            runs.push_back({{m, k, g, in, 0}});
        }
  return runs;
}

/// M x K x {bf16, fp32} x g in {32, 64, 128, K} x flags x formats: the cast
/// and its variants on one input.
void castAndVariants(std::vector<PerTokenRun> &runs, const std::vector<tk_format> &formats,
                     const std::vector<uint32_t> &flagSets) {
  for (int64_t m : specMs())
    for (int64_t k : specKs())
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : {32l, 64l, 128l, k})
          for (uint32_t flags : flagSets)
            for (tk_format fmt : formats)
              runs.push_back({{m, k, g, in, flags, 0, (uint64_t)(m + k + g), fmt}, Run::CastAndVariants});
}

std::vector<PerTokenRun> castGpuGrid() {
  std::vector<PerTokenRun> runs = castGrid(/*roundOffToo=*/true);
  // Group 16 and non-contiguous inputs (row stride 2K, spec check 3; unaligned rows: narrow loads).
  for (PerTokenCastCase c : {PerTokenCastCase{4001, 7168, 16, TK_BF16, TK_ROUND_SF},
                             PerTokenCastCase{4001, 7168, 128, TK_BF16, TK_ROUND_SF, 2 * 7168},
                             PerTokenCastCase{4001, 576, 64, TK_F32, 0, 2 * 576},
                             PerTokenCastCase{4001, 2048, 128, TK_BF16, 0, 2048 + 3}})
    runs.push_back({c});
  // e2m1 output with (round) and (round, col); packed UE8M0 scale factors (T, T, T) for e4m3 and e2m1.
  castAndVariants(runs, {TK_FORMAT_E2M1}, {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)});
  castAndVariants(runs, {TK_FORMAT_E4M3, TK_FORMAT_E2M1}, {kTTT});
  // E5M6 output (quant.md 4.5): g = K, flags (round) and (T, T, T).
  for (int64_t m : specMs())
    for (int64_t k : specKs())
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (uint32_t flags : {(uint32_t)TK_ROUND_SF, kTTT})
          runs.push_back({{m, k, k, in, flags, 0, (uint64_t)(m + k), TK_FORMAT_E5M6}});
  // Re-quantization (quant.md 4.2): e4m3 input blocks (128, 128) and (32, 32)
  // with (round) and (round, col) (power-of-two input scales, packed with
  // col); e2m1 input with (F, T, F) and (T, T, T) on both sides, to e4m3 and e2m1.
  for (int64_t m : specMs())
    for (int64_t k : specKs())
      for (int64_t g : {32, 128})
        for (int64_t bIn : {128, 32}) {
          for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)}) {
            const bool col = flags & TK_SF_COL_MAJOR;
            runs.push_back({{m, k, g, TK_BF16, flags, 0, (uint64_t)(m + k + g + bIn)}, Run::Requant,
                            {bIn, bIn, col, col}});
          }
          for (bool ttt : {false, true})
            for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1})
              runs.push_back({{m, k, g, TK_BF16, ttt ? kTTT : (uint32_t)TK_ROUND_SF, 0, (uint64_t)(m + k + g + bIn),
                               fmt},
                              Run::Requant,
                              {bIn, bIn, ttt, ttt, TK_FORMAT_E2M1}});
        }
  return runs;
}

std::vector<PerTokenRun> castCpuGrid() {
  std::vector<PerTokenRun> runs;
  for (int64_t m : {1, 37})
    for (int64_t k : {576, 2048, 2560, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : {16l, 32l, 64l, 128l, k})
          for (uint32_t flags : {0u, (uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)})
            if (g != k || k % 64 == 0)
              runs.push_back({{m, k, g, in, flags, 0, (uint64_t)(m * 31 + k)}});
  return runs;
}

/// sf_only and precomputed_sf: small shapes on the CPU (flags with col for
/// sf_only), the spec's grid (plain input, g != K, (round) and (round, col)) on a GPU.
std::vector<PerTokenRun> variantsCpuGrid(bool withCol) {
  std::vector<PerTokenRun> runs;
  for (int64_t m : {1, 37})
    for (int64_t k : {576, 2560, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : {16l, 32l, 128l})
          for (uint32_t flags : {0u, (uint32_t)TK_ROUND_SF})
            runs.push_back({{m, k, g, in, flags | (withCol ? (uint32_t)TK_SF_COL_MAJOR : 0u), 0, (uint64_t)(m + k + g)},
                            Run::Variants});
  return runs;
}

std::vector<PerTokenRun> variantsGpuGrid() {
  std::vector<PerTokenRun> runs;
  for (int64_t m : specMs())
    for (int64_t k : specKs())
      for (tk_dtype in : {TK_F32, TK_BF16})
        for (int64_t g : {32l, 64l, 128l})
          for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR)})
            runs.push_back({{m, k, g, in, flags}, Run::Variants});
  return runs;
}

/// The benchmark (quant.md 4.1): the headline 32768 x 7168 shape with
/// (col, round) flags and without; the grid's M x K x {bf16, fp32} x g with
/// (col, round) timed unchecked after the first; per output format with the
/// spec's flags; re-quantization of (128, 128) e4m3 blocks.
std::vector<PerTokenRun> castRows(const RowSelection &s) {
  std::vector<PerTokenRun> rows = {{{32768, 7168, 128, TK_BF16, 0}, Run::TimedCast},
                                   {{32768, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF}, Run::TimedCast}};
  std::vector<int64_t> ms = s.full ? std::vector<int64_t>{4001, 8001} : std::vector<int64_t>{8001};
  std::vector<int64_t> ks = s.full ? specKs() : std::vector<int64_t>{2048, 4096, 7168};
  for (int64_t m : ms)
    for (int64_t k : ks)
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : s.full ? std::vector<int64_t>{32, 64, 128, k} : std::vector<int64_t>{32, 128, k})
          rows.push_back({{m, k, g, in, TK_SF_COL_MAJOR | TK_ROUND_SF}, Run::TimedCast});
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].check = i == 0 || s.checkAll;
  if (s.headline) {
    rows.resize(1);
    return rows;
  }
  rows.push_back({{32768, 7168, 128, TK_BF16, kTTT}});
  rows.push_back({{32768, 7168, 32, TK_BF16, kTTT, 0, 1, TK_FORMAT_E2M1}});
  rows.push_back({{32768, 7168, 7168, TK_BF16, TK_ROUND_SF, 0, 1, TK_FORMAT_E5M6}});
  rows.push_back({{32768, 7168, 128, TK_BF16, kTTT}, Run::Requant, {128, 128, true, true}});
  return rows;
}

Table<PerTokenRun> table(const std::string &op) {
  return Table<PerTokenRun>{op, checkRun};
}

} // namespace

} // namespace tk::checks

TK_REGISTER_CASES(per_token_cast) {
  Table<PerTokenRun> cast = table("per_token_cast");
  cast.cpu = castCpuGrid();
  cast.gpu = castGpuGrid();
  cast.bench = castRows;
  for (PerTokenCastCase c : {PerTokenCastCase{256, 7168, 128, TK_BF16, 0},
                             PerTokenCastCase{256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF},
                             PerTokenCastCase{100, 2560, 32, TK_F32, TK_ROUND_SF},
                             PerTokenCastCase{64, 7168, 7168, TK_BF16, 0},
                             PerTokenCastCase{100, 2048, 128, TK_BF16, TK_ROUND_SF, /*xRowStride=*/2560},
                             PerTokenCastCase{256, 7168, 128, TK_BF16, kTTT},
                             PerTokenCastCase{256, 7168, 32, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF, 0, 1,
                                              TK_FORMAT_E2M1},
                             PerTokenCastCase{64, 7168, 7168, TK_F32, TK_ROUND_SF, 0, 1, TK_FORMAT_E5M6}})
    cast.small.push_back({c});
  cast.small.push_back({{256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF}, Run::Requant, {128, 128, true, true}});
  cast.small.push_back({{256, 7168, 32, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF, 0, 1, TK_FORMAT_E2M1},
                        Run::Requant,
                        {32, 32, false, false, TK_FORMAT_E2M1}});
  registerTable(cast);

  // The other per-token operators on the headline shape (row-major scale factors).
  Table<PerTokenRun> sfOnly = table("per_token_cast_with_sf_only");
  sfOnly.cpu = variantsCpuGrid(/*withCol=*/true);
  sfOnly.gpu = variantsGpuGrid();
  sfOnly.small = {{{256, 7168, 128, TK_BF16, TK_ROUND_SF}, Run::Variants}}; // both variants
  sfOnly.bench = [](const RowSelection &s) {
    return s.headline ? std::vector<PerTokenRun>{}
                      : std::vector<PerTokenRun>{{{32768, 7168, 128, TK_BF16, TK_ROUND_SF}, Run::TimedSfOnly}};
  };
  registerTable(sfOnly);

  // Checked by the same routine as sf_only (both run on each input); the CPU
  // grid here is the row-major flags, the GPU grid is sf_only's.
  Table<PerTokenRun> precomputed = table("per_token_cast_with_precomputed_sf");
  precomputed.cpu = variantsCpuGrid(/*withCol=*/false);
  precomputed.checkedWith = "per_token_cast_with_sf_only";
  precomputed.bench = [](const RowSelection &s) {
    return s.headline ? std::vector<PerTokenRun>{}
                      : std::vector<PerTokenRun>{{{32768, 7168, 128, TK_BF16, TK_ROUND_SF}, Run::TimedPrecomputedSf}};
  };
  registerTable(precomputed);
}
