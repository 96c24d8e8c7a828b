// The oracle of the SwiGLU checks: CUDA's own accurate expf, compiled by nvcc
// without fast-math into PTX that tk_bench embeds (bench/CMakeLists.txt).
// tk's kernels must match it bit for bit (quant.md 4.16-4.18).
extern "C" __global__ void tk_expf_oracle(const float *in, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = expf(in[i]);
}
