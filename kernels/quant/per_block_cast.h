//===- per_block_cast.h - b x g block quantization (spec quant.md 4.6-4.8) -===//
#pragma once

#include "kernels/common/program.h"
#include "kernels/quant/formats.h"

#include <string>

namespace tk::kernels::quant {

/// Which of the per-block operators (quant.md 4.6, 4.7, 4.8) the kernel is.
enum class PerBlockMode { Cast, SfOnly, PrecomputedSf };

/// Everything the generated code depends on; num_tokens stays dynamic.
struct PerBlockCastConfig {
  int64_t hidden = 0;      ///< K (a multiple of 64)
  int64_t blockM = 128;    ///< b: tokens per scale block (32 or 128)
  int64_t blockK = 128;    ///< g: channels per scale block (32 or 128)
  dsl::DType in = dsl::DType::BF16;
  bool roundSf = false;
  int64_t xAlignBytes = 16;
  int64_t outAlignBytes = 16;
  PerBlockMode mode = PerBlockMode::Cast;
  Format out = Format::E4M3; ///< or E2M1: out (M, K / 2) i8, two codes per byte
  bool packedSf = false;     ///< UE8M0 bytes, out_sf the (Mb, Kq, 4) byte view (quant.md 3.2)

  /// One block-row of scale blocks per CTA: b rows, and max(g, 8192 / b)
  /// columns (several scale blocks side by side when g is small).
  int64_t tileM() const { return blockM; }
  int64_t tileK() const { return std::max<int64_t>(blockK, 8192 / blockM); }
  /// 32 elements per thread, at most 512 threads.
  int64_t threads() const { return std::min<int64_t>(512, tileM() * tileK() / 32); }
  std::string key() const;
  std::string kernelName() const;
};

dsl::BuiltKernel buildPerBlockCast(mlir::MLIRContext &ctx, const PerBlockCastConfig &config);

/// C++ reference (quant.md 4.6). x is (M, K) contiguous (bf16 as raw bits or
/// fp32); out (M, K) e4m3 codes; sf(p, q) at sf[p * sfStride0 + q * sfStride1].
void perBlockCastReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t b, int64_t g, bool roundSf,
                           uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1, Format fmt = Format::E4M3);

/// Reference of per_block_cast_with_precomputed_sf (quant.md 4.8):
/// out = e4m3(x * fl(1 / sf[p, q])), sf row-major with row stride sfStride0.
void perBlockCastWithSfReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t b, int64_t g,
                                 const float *sf, int64_t sfStride0, uint8_t *out, Format fmt = Format::E4M3);

} // namespace tk::kernels::quant
