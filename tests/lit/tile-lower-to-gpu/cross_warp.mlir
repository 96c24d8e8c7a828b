// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// A whole 2048-wide row spans all four warps: after the lane butterfly, each
// warp's value goes through shared memory between two barriers. All 32 lanes
// hold it; one writes, so each warp needs one word.
// CHECK: gpu.func @rowmax{{.*}} workgroup(%{{.*}} : memref<4x1x1xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gpu.shuffle xor {{.*}}, %c16_i32, %c32_i32
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.barrier
tile.kernel @rowmax(%x: memref<?x2048xf32>, %y: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x2048xf32>
  tile.grid (%b) in (%m) {
    %t = tile.load %x[%b, %c0] : memref<?x2048xf32> -> !tile.frag<1x2048xf32>
    %a = tile.reduce max %t {dim = 1 : i64, group = 2048 : i64} : !tile.frag<1x2048xf32> -> !tile.frag<1x1xf32>
    tile.store %a, %y[%b, %c0] : !tile.frag<1x1xf32>, memref<?x1xf32>
  }
  tile.return
}
