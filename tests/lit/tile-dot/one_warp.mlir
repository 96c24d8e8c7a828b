// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A one-warp kernel has no other warp to share a staged rhs with: its
// transposed rhs [N, K] is loaded in the lhs's fragment form (8 x 4 lanes,
// the lhs's 8 K-consecutive elements per lane), each thread's loads are its
// b registers, and the product needs no shared memory and no barrier.
// LAYOUT-LABEL: tile.kernel @one_warp
// LAYOUT: tile.load {{.*}} -> !tile.frag<16x64xf32, #tile.blocked<vec = [1, 8], lanes = [8, 4], warps = [1, 1]>>
// LAYOUT: tile.dot {{.*}} acc({{.*}} : !tile.frag<32x16xf32, #tile.blocked<vec = [1, 2], lanes = [8, 4], warps = [1, 1]>>) {rhs_transposed} : !tile.frag<32x64xbf16, #tile.blocked<vec = [1, 8], lanes = [8, 4], warps = [1, 1]>>
// GPU-LABEL: gpu.func @one_warp
// GPU-NOT: workgroup(
// GPU-NOT: gpu.barrier
// GPU: nvvm.mma.sync
// GPU-NOT: gpu.barrier
// GPU: gpu.return
// With two warps the rhs is staged as before (MmaRegisters.cpp).
// GPU-LABEL: gpu.func @two_warps
// GPU-SAME: workgroup(%{{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: nvvm.mma.sync
// An rhs with another user (here added to another [N, K] tile) is staged,
// as with more warps: the b-register layout would set the two addends
// apart.
// GPU-LABEL: gpu.func @rhs_used_twice
// GPU-SAME: workgroup(
// GPU: gpu.barrier
// GPU: nvvm.mma.sync
// PTX-LABEL: .entry one_warp
// PTX-NOT: .shared
// PTX-NOT: bar.sync
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-NOT: bar.sync
// PTX: ret;
tile.kernel @one_warp(%x: memref<?x64xbf16>, %w: memref<16x64xf32>, %y: memref<?x16xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<32x16xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<32x16xf32>) {rhs_transposed} : !tile.frag<32x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<32x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x16xf32>, memref<?x16xf32>
  }
  tile.return
}

tile.kernel @two_warps(%x: memref<?x64xbf16>, %w: memref<16x64xf32>, %y: memref<?x16xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<32x16xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<32x16xf32>) {rhs_transposed} : !tile.frag<32x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<32x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x16xf32>, memref<?x16xf32>
  }
  tile.return
}

tile.kernel @rhs_used_twice(%x: memref<?x64xbf16>, %w: memref<16x64xf32>, %u: memref<16x64xf32>, %y: memref<?x16xf32>, %s: memref<16x64xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %o = tile.load %u[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<32x16xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<32x16xf32>) {rhs_transposed} : !tile.frag<32x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<32x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x16xf32>, memref<?x16xf32>
    %p = tile.parallel %v, %o : (!tile.frag<16x64xf32>, !tile.frag<16x64xf32>) -> !tile.frag<16x64xf32> {
    ^bb0(%e: f32, %f: f32):
      %t = arith.addf %e, %f : f32
      tile.yield %t : f32
    }
    tile.store %p, %s[%c0, %c0] : !tile.frag<16x64xf32>, memref<16x64xf32>
  }
  tile.return
}
