// RUN: tk-opt %s -tile-assign-layouts=infer=false | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=INFER
// RUN: tk-opt %s -tile-assign-layouts=infer=false -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU

// The ablation of layout inference: every result gets the default layout of
// its shape, and where an op needs its operand laid out otherwise (here the
// expansion, which needs the reduced form of its result's layout, and the
// elementwise op on the reduction's result, which needs its own layout) a
// tile.relayout moves the operand through shared memory.
// A per-token cast's core: absmax per group of 128, a scale, the expansion.
// CHECK: %[[T:.*]] = tile.load {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>>
// CHECK: %[[A:.*]] = tile.reduce max %[[T]] {{.*}} -> !tile.frag<4x2xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>, dim = 1, group = 128>>
// CHECK: %[[B:.*]] = tile.relayout %[[A]] {{.*}} -> !tile.frag<4x2xf32, #tile.blocked<vec = [1, 2], lanes = [32, 1], warps = [1, 4]>>
// CHECK: %[[S:.*]] = tile.parallel %[[B]] : {{.*}} -> !tile.frag<4x2xf32, #tile.blocked<vec = [1, 2], lanes = [32, 1], warps = [1, 4]>>
// CHECK: %[[R:.*]] = tile.relayout %[[S]] {{.*}} -> !tile.frag<4x2xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>, dim = 1, group = 128>>
// CHECK: tile.expand %[[R]]
// CHECK-NOT: tile.relayout
// With inference the scale keeps the reduction's layout: nothing moves.
// INFER-NOT: tile.relayout
// Each relayout: writes to one shared buffer, a barrier, reads, a barrier.
// GPU: gpu.func @k{{.*}} workgroup(%{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>
// GPU-COUNT-4: gpu.barrier
// GPU-NOT: gpu.barrier
tile.kernel @k(%x: memref<?x256xf32>, %y: memref<?x256xf32>) attributes {threads = 128 : i64} {
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
