// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-ptx=target=sm_100a | FileCheck %s --check-prefix=PTX

// tile.dot: bf16 x f32 runs as TF32 (the f32 operand rounded by adding
// 0x1000 and clearing the low 13 bits, the bf16 one widened), bf16 x bf16
// as bf16. On the GPU both operands are staged in shared memory (rows
// padded: A's 16-word rows to 36 words, 4 mod 32, for its 1-word fragment
// reads; B's [K, N] rows of 8 words to 20, 4 mod 16, for its reads down a
// column) and each warp issues mma.sync per 16 x 8 tile and K step; on the
// CPU each element is a loop over K of exact products added in order.
// GPU-LABEL: gpu.func @mixed
// GPU: vector.store {{.*}} : memref<16x72xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// GPU: memref.store {{.*}} : memref<32x20xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: vector.load {{.*}} : memref<16x72xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// GPU: memref.load {{.*}} : memref<32x20xf32, #gpu.address_space<workgroup>>
// GPU: arith.addi {{.*}}, %c4096_i32
// GPU: arith.andi {{.*}}, %c-8192_i32
// GPU: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// GPU-NOT: tile.
// GPU-LABEL: gpu.func @bf16
// GPU: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// An [N, K] rhs (rhs_transposed) is staged as it is, its rows padded to 8
// mod 32 words, and read two K-consecutive elements at a time like A.
// GPU-LABEL: gpu.func @transposed
// GPU: vector.store {{.*}} : memref<8x40xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// GPU: vector.load {{.*}} : memref<8x40xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// GPU: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
// CPU-LABEL: func.func @mixed
// CPU: scf.for
// CPU: arith.extf {{.*}} : bf16 to f32
// CPU: arith.andi
// CPU: arith.mulf
// CPU: arith.addf
// CPU-NOT: tile.
// CPU-LABEL: func.func @transposed
// CPU: arith.mulf
// PTX-LABEL: .entry mixed
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-LABEL: .entry bf16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-LABEL: .entry transposed
// PTX: ld.shared.v2.b32
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
tile.kernel @mixed(%x: memref<?x32xbf16>, %w: memref<32x8xf32>, %y: memref<?x8xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x32xbf16> -> !tile.frag<16x32xbf16>
    %v = tile.load %w[%c0, %c0] : memref<32x8xf32> -> !tile.frag<32x8xf32>
    %c = tile.dot %a, %v : !tile.frag<16x32xbf16>, !tile.frag<32x8xf32> -> !tile.frag<16x8xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<16x8xf32>, memref<?x8xf32>
  }
  tile.return
}

tile.kernel @bf16(%x: memref<?x32xbf16>, %w: memref<32x16xbf16>, %y: memref<?x16xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x32xbf16> -> !tile.frag<32x32xbf16>
    %v = tile.load %w[%c0, %c0] : memref<32x16xbf16> -> !tile.frag<32x16xbf16>
    %c = tile.dot %a, %v : !tile.frag<32x32xbf16>, !tile.frag<32x16xbf16> -> !tile.frag<32x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x16xf32>, memref<?x16xf32>
  }
  tile.return
}

tile.kernel @transposed(%x: memref<?x32xbf16>, %w: memref<8x32xf32>, %y: memref<?x8xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x32xbf16> -> !tile.frag<16x32xbf16>
    %v = tile.load %w[%c0, %c0] : memref<8x32xf32> -> !tile.frag<8x32xf32>
    %c = tile.dot %a, %v {rhs_transposed} : !tile.frag<16x32xbf16>, !tile.frag<8x32xf32> -> !tile.frag<16x8xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<16x8xf32>, memref<?x8xf32>
  }
  tile.return
}
