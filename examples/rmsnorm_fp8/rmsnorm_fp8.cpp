// A fused kernel that TileKernels does not have, written against tk's public
// kernel-author API (tk/dsl.hpp) only: RMSNorm of each token's row, scaled by
// a 1-D weight, then cast to FP8 (E4M3) with one scale factor per 128
// columns of a token.
//
//   y[t, :]   = x[t, :] * rsqrt(mean(x[t, :]^2) + eps) * w[:]      (f32)
//   sf[t, g]  = max(absmax(y[t, 128 g : 128 g + 128]) / 448, 1e-10)
//   q[t, c]   = e4m3(y[t, c] / sf[t, c / 128])
//
//   rmsnorm_fp8                    runs it on the CPU path against a C++ reference
//                                  and prints its sm_90a PTX's size
//   rmsnorm_fp8 list | compile ... | run     tk's kernel tooling (tk::toolMain)
#include <tk/dsl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int64_t kGroup = 128;
constexpr double kEps = 1e-6;

struct Config {
  int64_t hidden = 1024;
  // Rows per block: each of the 256 threads holds rows * hidden / 256 values
  // in registers (28 at 7168), so wide rows go one per block.
  int64_t rows = 4;
  std::string key() const { return "h" + std::to_string(hidden) + ".r" + std::to_string(rows); }
};

tk::BuiltKernel buildRmsNormFp8(mlir::MLIRContext &ctx, const Config &c) {
  tk::KernelBuilder k(ctx, "rmsnorm_fp8", 256);
  tk::Dim tokens = k.dynamic("tokens");
  tk::Tensor x = k.input("x", {tokens, c.hidden}, tk::DType::BF16);
  tk::Tensor w = k.input("w", {1, c.hidden}, tk::DType::BF16); // callers pass a 1-D [hidden] weight
  tk::Tensor q = k.output("q", {tokens, c.hidden}, tk::DType::F8E4M3);
  tk::Tensor sf = k.output("sf", {tokens, c.hidden / kGroup}, tk::DType::F32);
  k.grid({ceil_div(tokens, c.rows)}, [&](const std::vector<tk::Index> &b) {
    tk::Index row = b[0] * c.rows, zero = k.index(0);
    tk::Tile xt = k.load(x, {row, zero}, {c.rows, c.hidden}).to(tk::DType::F32);
    tk::Tile inv = map({reduce_sum(xt * xt, 1)}, tk::DType::F32, [&](const std::vector<tk::Scalar> &s) {
      return rsqrt(s[0] / s[0].constantF32((double)c.hidden) + s[0].constantF32(kEps));
    });
    // [rows, H] * [rows, 1] * [1, H]: tiles broadcast where a size is 1.
    tk::Tile y = xt * inv * k.load(w, {zero, zero}, {1, c.hidden}).to(tk::DType::F32);
    tk::Tile scale = max(reduce_absmax(y, 1, kGroup) / 448.0, 1e-10);
    k.store(q, {row, zero}, (y / expand(scale, 1, kGroup)).to(tk::DType::F8E4M3));
    k.store(sf, {row, zero}, scale);
  });
  return k.finish();
}

tk::KernelFactory factory(int64_t hidden) {
  return tk::factoryOf(buildRmsNormFp8, Config{hidden, hidden >= 4096 ? 1 : 4});
}

// Host-side helpers for the reference.
float bf16ToF32(uint16_t v) {
  uint32_t u = (uint32_t)v << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t f32ToBf16(float f) { // round to nearest even (finite values)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
float e4m3ToF32(uint8_t v) {
  int sign = v >> 7, exp = (v >> 3) & 15, man = v & 7;
  float mag = exp ? std::ldexp(1.0f + man / 8.0f, exp - 7) : std::ldexp(man / 8.0f, -6);
  return sign ? -mag : mag;
}

/// Runs the kernel on host tensors (tk's CPU path) and compares it with the
/// formula above in double precision: "" when every value is within FP8's
/// rounding (half an E4M3 step of the scaled value), else the first miss.
std::string check(tk_context ctx, int64_t tokens, int64_t hidden) {
  std::vector<uint16_t> x(tokens * hidden), w(hidden);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = f32ToBf16(std::sin(0.37f * (float)i) * (1.0f + (float)(i % 7)));
  for (int64_t j = 0; j < hidden; ++j)
    w[j] = f32ToBf16(0.5f + (float)(j % 11) / 16.0f);
  const int64_t groups = hidden / kGroup;
  std::vector<uint8_t> q(tokens * hidden);
  std::vector<float> sf(tokens * groups);
  auto tensor = [](void *data, tk_dtype dtype, std::vector<int64_t> shape) {
    tk_tensor t{};
    t.data = data;
    t.dtype = dtype;
    t.ndim = (int32_t)shape.size();
    int64_t stride = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      t.shape[d] = shape[d];
      t.strides[d] = stride;
      stride *= shape[d];
    }
    t.device = TK_DEVICE_CPU;
    return t;
  };
  tk_tensor tx = tensor(x.data(), TK_BF16, {tokens, hidden}), tw = tensor(w.data(), TK_BF16, {hidden}),
            tq = tensor(q.data(), TK_F8_E4M3, {tokens, hidden}), tsf = tensor(sf.data(), TK_F32, {tokens, groups});
  if (tk::run(ctx, factory(hidden), {&tx, &tw, &tq, &tsf}) != TK_SUCCESS)
    return std::string("tk::run: ") + tk_last_error();
  for (int64_t t = 0; t < tokens; ++t) {
    double ss = 0;
    for (int64_t j = 0; j < hidden; ++j)
      ss += (double)bf16ToF32(x[t * hidden + j]) * bf16ToF32(x[t * hidden + j]);
    const double inv = 1.0 / std::sqrt(ss / (double)hidden + kEps);
    for (int64_t g = 0; g < groups; ++g) {
      double amax = 0;
      for (int64_t j = g * kGroup; j < (g + 1) * kGroup; ++j)
        amax = std::max(amax, std::fabs(bf16ToF32(x[t * hidden + j]) * inv * bf16ToF32(w[j])));
      const double wantSf = std::max(amax / 448.0, 1e-10), gotSf = sf[t * groups + g];
      if (std::fabs(gotSf - wantSf) > 1e-5 * wantSf)
        return "sf[" + std::to_string(t) + ", " + std::to_string(g) + "] = " + std::to_string(gotSf) + ", want " +
               std::to_string(wantSf);
      for (int64_t j = g * kGroup; j < (g + 1) * kGroup; ++j) {
        const double y = bf16ToF32(x[t * hidden + j]) * inv * bf16ToF32(w[j]) / gotSf;
        const double got = e4m3ToF32(q[t * hidden + j]);
        // E4M3 keeps 3 mantissa bits: within half a step (2^-4 relative), or 2^-10 near zero.
        if (std::fabs(got - y) > std::max(std::fabs(y) * 0.0625, 0.001))
          return "q[" + std::to_string(t) + ", " + std::to_string(j) + "] = " + std::to_string(got) + ", want " +
                 std::to_string(y);
      }
    }
  }
  return "";
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<int64_t> sizes = {1024, 4096, 7168};
  tk::UserKernel kernel{"rmsnorm_fp8", {}, "RMSNorm, then FP8 (E4M3) with a scale per 128 columns of a token", {}};
  for (int64_t hidden : sizes)
    kernel.variants.push_back({"rmsnorm_fp8.h" + std::to_string(hidden), factory(hidden)});
  kernel.check = [sizes](tk_context ctx) {
    for (int64_t hidden : sizes)
      if (std::string error = check(ctx, 9, hidden); !error.empty())
        return "hidden " + std::to_string(hidden) + ": " + error;
    return std::string();
  };
  if (tk::registerKernel(std::move(kernel)) != TK_SUCCESS) {
    std::fprintf(stderr, "registerKernel: %s\n", tk_last_error());
    return 1;
  }
  if (argc > 1)
    return tk::toolMain(argc, argv);

  tk_context ctx = nullptr;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk_context_create: %s\n", tk_last_error());
    return 1;
  }
  const std::string error = check(ctx, 33, 1024);
  tk_context_destroy(ctx);
  std::printf("rmsnorm_fp8 on the CPU path, 33 x 1024: %s\n", error.empty() ? "matches the reference" : error.c_str());
  std::string ptx;
  if (tk::compile(factory(1024), "sm_90a", ptx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk::compile: %s\n", tk_last_error());
    return 1;
  }
  std::printf("rmsnorm_fp8 for sm_90a: %zu bytes of PTX\n", ptx.size());
  return error.empty() ? 0 : 1;
}
