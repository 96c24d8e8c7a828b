// Tensor-core issue rates on one GPU: mma.sync m16n8k8 TF32 and m16n8k16 bf16 (what tile.dot lowers to), and
// wgmma m64n32k8 TF32 with A in registers and B in shared memory (tile.dot {warpgroup} on sm_90a), from
// 1, 2 and 4 CTAs per SM. Only the rate is measured: the operands are whatever bits the threads hold, the results
// are kept live and never read. Quoted in docs/mhc_kernels.md (mhc_pre_norm_fn) to say whether a kernel's products
// are bound by the tensor core.
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o tensor_core_rate bench/probes/tensor_core_rate.cu
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace {

constexpr int kChains = 8; // independent accumulators a warp keeps in flight

struct Operands {
  uint32_t a0, a1, a2, a3, b0, b1;
  __device__ Operands()
      : a0(threadIdx.x), a1(a0 * 3), a2(a0 * 5), a3(a0 * 7), b0(threadIdx.x ^ 1), b1(threadIdx.x ^ 2) {}
};

__device__ void keep(float *sink, float s) {
  if (s == 1234.5f) // practically never: keeps the products live
    *sink = s;
}

// kChains independent mma.sync products a warp, `iters` times: m16n8k8 TF32, or m16n8k16 bf16 when Bf16.
template <bool Bf16> __global__ void mmaSync(float *sink, int iters) {
  float acc[kChains][4] = {};
  Operands o;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < kChains; ++j) {
      float(&d)[4] = acc[j];
      if constexpr (Bf16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(o.a0), "r"(o.a1), "r"(o.a2), "r"(o.a3), "r"(o.b0), "r"(o.b1));
      else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(o.a0), "r"(o.a1), "r"(o.a2), "r"(o.a3), "r"(o.b0), "r"(o.b1));
    }
  float s = 0;
  for (auto &c : acc)
    s += c[0] + c[1] + c[2] + c[3];
  keep(sink, s);
}

// One m64n32k8 product into the 16 accumulators `d` of a warpgroup's thread; B's descriptor: start address / 16,
// leading and stride byte offsets / 16 (no swizzle).
__device__ __forceinline__ void wgmma(float (&d)[16], const Operands &o, uint64_t desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
               : "r"(o.a0), "r"(o.a1), "r"(o.a2), "r"(o.a3), "l"(desc));
}

// Four accumulators (m-blocks) x four k steps between a commit and its wait.
__global__ void wgmmaTf32(float *sink, int iters) {
  __shared__ __align__(1024) float rhs[8 * 32 * 8];
  for (int i = threadIdx.x; i < 8 * 32 * 8; i += blockDim.x)
    rhs[i] = 0.f;
  __syncthreads();
  float d0[16] = {}, d1[16] = {}, d2[16] = {}, d3[16] = {};
  Operands o;
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(rhs);
  for (int it = 0; it < iters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const uint64_t desc = ((base + k * 1024) & 0x3FFFF) >> 4 | uint64_t(128 >> 4) << 16 | uint64_t(256 >> 4) << 32;
      wgmma(d0, o, desc);
      wgmma(d1, o, desc);
      wgmma(d2, o, desc);
      wgmma(d3, o, desc);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  float s = 0;
  for (int i = 0; i < 16; ++i)
    s += d0[i] + d1[i] + d2[i] + d3[i];
  keep(sink, s);
}

template <class Kernel>
bool timeRate(Kernel kernel, const char *name, int blocks, int threads, double flopsPerIter, float *sink) {
  const int iters = 20000;
  kernel<<<blocks, threads>>>(sink, 10); // warm-up
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  kernel<<<blocks, threads>>>(sink, iters);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorString(err));
    return false;
  }
  std::printf("%-11s %4d CTAs x %3d threads: %8.3f ms %7.1f TFLOPS\n", name, blocks, threads, ms,
              flopsPerIter * iters / (ms * 1e-3) / 1e12);
  return true;
}

} // namespace

int main() {
  float *sink = nullptr;
  if (cudaMalloc(&sink, sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 1;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, sms);
  bool ok = true;
  for (int perSm : {1, 2, 4}) {
    const int blocks = sms * perSm;
    const double warps = double(blocks) * 8; // the mma.sync kernels' 256-thread CTAs
    ok &= timeRate(mmaSync<false>, "mma tf32", blocks, 256, warps * kChains * 2.0 * 16 * 8 * 8, sink);
    ok &= timeRate(mmaSync<true>, "mma bf16", blocks, 256, warps * kChains * 2.0 * 16 * 8 * 16, sink);
    for (int threads : {128, 256})
      ok &= timeRate(wgmmaTf32, "wgmma tf32", blocks, threads,
                     double(blocks) * (threads / 128) * 16 * 2.0 * 64 * 32 * 8, sink);
  }
  return ok ? 0 : 1;
}
