// Checks the operand layouts tile.dot's wgmma lowering assumes (compiler/lib/Conversion/TileToGPU/MmaWarpgroup.cpp)
// on one sm_90a GPU: wgmma m64n32k8 TF32 with A in registers (each warp of the warpgroup holds 16 rows in
// mma.m16n8k8's A fragment), D in the same per-warp layout as four m16n8 tiles, and B [N = 32, K = 8] K-major in
// shared memory without swizzle as 8 x 16-byte core matrices, the K pair 128 bytes apart and the N groups 256. It
// runs the product two ways, the descriptor's leading offset 128 and stride 256 and the other way round, on small
// integers (every product and sum exact), and prints which one gives A B^T.
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o wgmma_tf32_layout bench/probes/wgmma_tf32_layout.cu
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace {

constexpr int kM = 64, kN = 32, kK = 16; // two k steps

__device__ __forceinline__ void wgmma(float (&d)[16], const uint32_t (&a)[4], uint64_t desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// a [64, 16], b [32, 16] (N x K), d [64, 32] = a b^T.
__global__ void product(const float *a, const float *b, float *d, int swapOffsets) {
  __shared__ __align__(1024) float rhs[kN * kK];
  // Step s's [32, 8] at s * 1024 bytes; in it the core matrix (N group ng, K half kh) at kh * 128 + ng * 256 bytes,
  // its row n % 8 16 bytes, element k % 4.
  for (int i = threadIdx.x; i < kN * kK; i += blockDim.x) {
    const int n = i / kK, k = i % kK, s = k / 8, kh = (k % 8) / 4;
    rhs[s * 256 + kh * 32 + (n / 8) * 64 + (n % 8) * 4 + k % 4] = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int row = 16 * warp + g;
  float acc[16] = {};
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(rhs);
  const uint64_t lead = swapOffsets ? 256 : 128, stride = swapOffsets ? 128 : 256;
  for (int s = 0; s < 2; ++s) {
    uint32_t regs[4];
    const float *as = a + s * 8;
    regs[0] = __float_as_uint(as[row * kK + t]);
    regs[1] = __float_as_uint(as[(row + 8) * kK + t]);
    regs[2] = __float_as_uint(as[row * kK + t + 4]);
    regs[3] = __float_as_uint(as[(row + 8) * kK + t + 4]);
    const uint64_t desc = ((base + s * 1024) & 0x3FFFF) >> 4 | (lead >> 4) << 16 | (stride >> 4) << 32;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    wgmma(acc, regs, desc);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      d[(row + 8 * (i / 2)) * kN + 8 * j + 2 * t + i % 2] = acc[4 * j + i];
}

} // namespace

int main() {
  float ha[kM * kK], hb[kN * kK], hd[kM * kN], want[kM * kN];
  for (int i = 0; i < kM * kK; ++i)
    ha[i] = float((i * 7 + 3) % 9 - 4);
  for (int i = 0; i < kN * kK; ++i)
    hb[i] = float((i * 5 + 1) % 7 - 3);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      float s = 0;
      for (int k = 0; k < kK; ++k)
        s += ha[m * kK + k] * hb[n * kK + k];
      want[m * kN + n] = s;
    }
  float *a, *b, *d;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&d, sizeof hd);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  int good = -1;
  for (int swap = 0; swap < 2; ++swap) {
    cudaMemset(d, 0, sizeof hd);
    product<<<1, 128>>>(a, b, d, swap);
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
      std::printf("launch failed: %s\n", cudaGetErrorString(e));
      return 2;
    }
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    int bad = 0, first = -1;
    for (int i = 0; i < kM * kN; ++i)
      if (hd[i] != want[i] && bad++ == 0)
        first = i;
    std::printf("leading %d, stride %d: %d of %d wrong", swap ? 256 : 128, swap ? 128 : 256, bad, kM * kN);
    if (first >= 0)
      std::printf(" (first [%d, %d]: %g, want %g)", first / kN, first % kN, hd[first], want[first]);
    std::printf("\n");
    if (!bad)
      good = swap;
  }
  std::printf(good < 0 ? "neither layout matches\n" : "layout confirmed\n");
  return good < 0;
}
