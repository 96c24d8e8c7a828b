// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// A reduction of a reduction along the same dimension: maxima of 8 along a
// row, then of 4 of those, i.e. of 32 consecutive elements. Each thread holds
// 4 consecutive elements, so the first step combines 2 lanes (distance 1) and
// the second must combine 8 lanes (distances 1, 2 and 4), not 4 values of one
// thread (which it did when it read the second group as one over the root).
// LAYOUT: tile.load {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>>
// LAYOUT: tile.reduce max {{.*}} -> !tile.frag<4x8xf32, #tile.reduced<#tile.reduced<#tile.blocked<{{.*}}>, dim = 1, group = 8>, dim = 1, group = 4>>
// CHECK-LABEL: gpu.func @same_dim
// CHECK: gpu.shuffle  xor {{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor {{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor {{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor {{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor {{.*}}, %c4_i32
// CHECK: memref.store
tile.kernel @same_dim(%x: memref<?x256xf32> {tile.align = 16 : i64}, %m: memref<?x8xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %r = tile.reduce max %t {dim = 1 : i64, group = 8 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x32xf32>
    %a = tile.reduce max %r {dim = 1 : i64, group = 4 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x8xf32>
    tile.store %a, %m[%c0, %c0] : !tile.frag<4x8xf32>, memref<?x8xf32>
  }
  tile.return
}
