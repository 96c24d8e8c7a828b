// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s

// Elementwise math whose inputs are all expansions (a row's maximum, a
// scale per row) computes each distinct value once: on the thread's 4
// reduced slots, not its 16 elements, and expands the result afterwards.
// CHECK-LABEL: gpu.func @scale_of_rowmax
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK-NOT: arith.mulf {{.*}} : vector<16xf32>
// CHECK: vector.shuffle {{.*}} : vector<4xf32>, vector<4xf32>
// The product with the (not expanded) data stays per element.
// CHECK: arith.addf {{.*}} : vector<16xf32>
tile.kernel @scale_of_rowmax(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<32x64xf32>
    %r = tile.reduce max %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x64xf32> -> !tile.frag<32x1xf32>
    %e = tile.expand %r {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x1xf32> -> !tile.frag<32x64xf32>
    %s = tile.parallel %e, %e : (!tile.frag<32x64xf32>, !tile.frag<32x64xf32>) -> !tile.frag<32x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %q = arith.mulf %u, %v : f32
      tile.yield %q : f32
    }
    %p = tile.parallel %t, %s : (!tile.frag<32x64xf32>, !tile.frag<32x64xf32>) -> !tile.frag<32x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %q = arith.addf %u, %v : f32
      tile.yield %q : f32
    }
    tile.store %p, %y[%c0, %c0] : !tile.frag<32x64xf32>, memref<?x64xf32>
  }
  tile.return
}
