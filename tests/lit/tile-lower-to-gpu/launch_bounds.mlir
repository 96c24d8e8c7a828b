// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s --check-prefix=NONE
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=min-blocks-per-sm=6 | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// min-blocks-per-sm (TK_MIN_BLOCKS_PER_SM) becomes nvvm.minctasm on the
// kernel, which the NVPTX back end writes as .minnctapersm: ptxas then keeps
// the registers per thread low enough for six 128-thread blocks per SM.
// A kernel's schedule may ask for its own (min_blocks_per_sm, the DSL's
// KernelBuilder::minBlocksPerSm); the option overrides it.
// NONE-NOT: gpu.func @copy{{.*}}nvvm.minctasm
// NONE: gpu.func @bounded{{.*}}nvvm.minctasm = 3 : i32
// CHECK: gpu.func @copy{{.*}}nvvm.minctasm = 6 : i32
// CHECK: gpu.func @bounded{{.*}}nvvm.minctasm = 6 : i32
// PTX-LABEL: .entry copy
// PTX-NOT: .minnctapersm
// PTX-LABEL: .entry bounded
// PTX: .minnctapersm 3
tile.kernel @copy(%x: memref<?x1024xf32>, %y: memref<?x1024xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%b, %c0] : memref<?x1024xf32> -> !tile.frag<1x1024xf32>
    tile.store %t, %y[%b, %c0] : !tile.frag<1x1024xf32>, memref<?x1024xf32>
  }
  tile.return
}

tile.kernel @bounded(%x: memref<?x1024xf32>, %y: memref<?x1024xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<min_blocks_per_sm = 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%b, %c0] : memref<?x1024xf32> -> !tile.frag<1x1024xf32>
    tile.store %t, %y[%b, %c0] : !tile.frag<1x1024xf32>, memref<?x1024xf32>
  }
  tile.return
}
