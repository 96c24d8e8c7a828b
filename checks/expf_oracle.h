//===- expf_oracle.h - CUDA's device expf, for bit-exact SwiGLU checks ----===//
//
// SwiGLU kernels call CUDA's accurate expf, which differs from the C
// library's in about 30% of inputs (quant.md 4.16). Their references therefore
// take the exponential as a function: the C library's on the CPU path (which
// is what tk's CPU lowering calls), or a table of values the GPU computed with
// an nvcc-compiled kernel (bench/expf_oracle.cu) for the GPU checks.
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/gpu_session.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tk::checks {

using ExpF = std::function<float(float)>;

/// expf of the C library.
float hostExpf(float x);

/// e^x looked up by the bits of x (arguments with bf16 precision from a dense
/// array); throws for an argument not in the table.
class ExpTable {
public:
  ExpTable(const std::vector<float> &args, const std::vector<float> &values);
  float operator()(float x) const;

private:
  std::vector<float> bf16_;        ///< by the upper 16 bits, for arguments whose lower 16 are zero
  std::vector<bool> haveBf16_;
  std::unordered_map<uint32_t, float> others_;
};

/// Whether this build embeds the oracle (nvcc was found at configure time).
bool haveExpfOracle();

/// CUDA's expf of every `args` value, computed on `gpu`'s device. Throws
/// std::runtime_error when the oracle is missing or a CUDA call fails.
ExpTable deviceExpTable(GpuSession &gpu, const std::vector<float> &args);

/// CUDA's expf of every `args` value, in order (for arguments too many or
/// too varied for a table).
std::vector<float> deviceExpValues(GpuSession &gpu, const std::vector<float> &args);

/// The arguments SwiGLU's exponential meets for bf16 input: -v for every bf16
/// value v (clamp values that are bf16 values, as the tested 10 and 0.5, are
/// among them; an ExpTable asked for another argument throws).
std::vector<float> bf16SwigluExpArguments();

/// The SwiGLU checks' reference exponential for a run on `gpu`: null on the
/// CPU path (the C library's expf there), else CUDA's expf of
/// bf16SwigluExpArguments(), computed on the first GPU asked and kept for the
/// process (the values are the device function's, the same on every GPU).
/// Throws as deviceExpTable does.
const ExpTable *swigluExpOracle(GpuSession *gpu);

} // namespace tk::checks
