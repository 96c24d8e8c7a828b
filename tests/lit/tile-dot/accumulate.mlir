// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.dot with an accumulator: result = acc + lhs x rhs. Where the rows
// fill whole 16-row tiles per warp (64 rows, 4 warps), layout assignment
// asks for the lhs and the accumulator in mma.sync's fragment layouts
// (8 x 4 lanes, the lhs 8 K-consecutive bf16 per lane, the accumulator
// 2 columns per lane); only the rhs is staged in shared memory, its [N, K]
// rows padded from 64 to 68 words, and each thread's registers feed
// mma.sync directly, starting from the accumulator.
// LAYOUT-LABEL: tile.kernel @registers
// LAYOUT: tile.dot {{.*}} acc({{.*}} : !tile.frag<64x16xf32, #tile.blocked<vec = [1, 2], lanes = [8, 4], warps = [4, 1]>>) {rhs_transposed} : !tile.frag<64x64xbf16, #tile.blocked<vec = [1, 8], lanes = [8, 4], warps = [4, 1]>>
// The lhs's fragment layout overrides its other uses' wishes, before or after the product.
// LAYOUT-LABEL: tile.kernel @other_uses
// LAYOUT: tile.load {{.*}} -> !tile.frag<64x64xbf16, #tile.blocked<vec = [1, 8], lanes = [8, 4], warps = [4, 1]>>
// GPU-LABEL: gpu.func @registers
// GPU-SAME: workgroup(%{{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// GPU: gpu.barrier
// GPU: vector.load {{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// GPU: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
// 32 rows cannot fill 4 warps' tiles: both operands are staged and the
// accumulator is added to the product read back in its layout.
// GPU-LABEL: gpu.func @staged
// GPU-SAME: memref<32x72xbf16, #gpu.address_space<workgroup>>
// GPU-SAME: memref<32x20xf32, #gpu.address_space<workgroup>>
// GPU-SAME: memref<32x12xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: nvvm.mma.sync
// GPU: gpu.barrier
// GPU: memref.load {{.*}} : memref<32x12xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: arith.addf {{.*}} : vector<8xf32>
// The CPU loop over K starts from the accumulator's element.
// CPU-LABEL: func.func @registers
// CPU: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CPU: arith.mulf
// CPU: arith.addf
// PTX-LABEL: .entry registers
// PTX: .shared .align 16 .b8 {{.*}}[4352]
// A bf16 lhs element becomes its TF32 operand by its conversion to f32
// (exact), which a sum of squares of the same elements shares (@other_uses:
// one conversion an element, not a second by shifting its bits, which cost
// norm_fn's forward 7-12% on the H200).
// PTX-NOT: cvt.u32.u16
// PTX: cvt.f32.bf16
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-LABEL: .entry staged
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-LABEL: .entry other_uses
// PTX-NOT: cvt.u32.u16
// PTX: cvt.f32.bf16
// PTX-NOT: cvt.u32.u16
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
tile.kernel @registers(%x: memref<?x64xbf16>, %w: memref<16x64xf32>, %y: memref<?x16xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<64x16xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<64x16xf32>) {rhs_transposed} : !tile.frag<64x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<64x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<64x16xf32>, memref<?x16xf32>
  }
  tile.return
}

tile.kernel @staged(%x: memref<?x32xbf16>, %w: memref<32x8xf32>, %y: memref<?x8xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x32xbf16> -> !tile.frag<32x32xbf16>
    %v = tile.load %w[%c0, %c0] : memref<32x8xf32> -> !tile.frag<32x8xf32>
    %z = tile.load %y[%c0, %c0] : memref<?x8xf32> -> !tile.frag<32x8xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<32x8xf32>) : !tile.frag<32x32xbf16>, !tile.frag<32x8xf32> -> !tile.frag<32x8xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x8xf32>, memref<?x8xf32>
  }
  tile.return
}

tile.kernel @other_uses(%x: memref<?x64xbf16>, %w: memref<16x64xf32>, %y: memref<?x16xf32>, %s: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<64x16xf32>
    %f = tile.convert %a : !tile.frag<64x64xbf16> -> !tile.frag<64x64xf32>
    %r = tile.reduce sum %f {dim = 1 : i64, group = 64 : i64} : !tile.frag<64x64xf32> -> !tile.frag<64x1xf32>
    tile.store %r, %s[%c0, %c0] : !tile.frag<64x1xf32>, memref<?x1xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<64x16xf32>) {rhs_transposed} : !tile.frag<64x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<64x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<64x16xf32>, memref<?x16xf32>
    %g = tile.convert %a : !tile.frag<64x64xbf16> -> !tile.frag<64x64xf32>
    %q = tile.reduce sum %g {dim = 1 : i64, group = 64 : i64} : !tile.frag<64x64xf32> -> !tile.frag<64x1xf32>
    tile.store %q, %s[%c0, %c0] : !tile.frag<64x1xf32>, memref<?x1xf32>
  }
  tile.return
}
