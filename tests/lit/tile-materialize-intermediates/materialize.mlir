// RUN: tk-opt %s -tile-assign-layouts -tile-materialize-intermediates | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-materialize-intermediates -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: not tk-opt %s -tile-materialize-intermediates -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// The ablation of fusion: each computed fragment goes through shared memory
// (a tile.relayout to its own layout) before the ops that compute with it;
// stores write from registers. Loads and expansions compute nothing.
// CHECK: %[[T:.*]] = tile.load
// CHECK: %[[A:.*]] = tile.reduce max %[[T]]
// CHECK: %[[A2:.*]] = tile.relayout %[[A]] : !tile.frag<4x2xf32, #tile.reduced<[[L:.*]]>> -> !tile.frag<4x2xf32, #tile.reduced<[[L]]>>
// CHECK: %[[S:.*]] = tile.parallel %[[A2]]
// CHECK: %[[S2:.*]] = tile.relayout %[[S]]
// CHECK: tile.store %[[S]], %arg1
// CHECK: %[[E:.*]] = tile.expand %[[S2]]
// CHECK: %[[P:.*]] = tile.parallel %[[T]], %[[E]]
// CHECK-NOT: tile.relayout
// CHECK: tile.store %[[P]], %arg2
// Two round trips through one 32-byte buffer, two barriers each.
// GPU: workgroup(%{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>
// GPU-COUNT-4: gpu.barrier
// GPU-NOT: gpu.barrier
// ERR: error: 'tile.reduce' op has no layout: tile-materialize-intermediates runs after tile-assign-layouts
tile.kernel @k(%x: memref<?x256xf32>, %sf: memref<?x2xf32>, %y: memref<?x256xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %a = tile.reduce max %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x2xf32>
    %s = tile.parallel %a : (!tile.frag<4x2xf32>) -> !tile.frag<4x2xf32> {
    ^bb0(%v: f32):
      %one = arith.constant 1.0 : f32
      %i = arith.divf %one, %v : f32
      tile.yield %i : f32
    }
    tile.store %s, %sf[%r, %c0] : !tile.frag<4x2xf32>, memref<?x2xf32>
    %e = tile.expand %s {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x2xf32> -> !tile.frag<4x256xf32>
    %p = tile.parallel %t, %e : (!tile.frag<4x256xf32>, !tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%u: f32, %w: f32):
      %q = arith.mulf %u, %w : f32
      tile.yield %q : f32
    }
    tile.store %p, %y[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
