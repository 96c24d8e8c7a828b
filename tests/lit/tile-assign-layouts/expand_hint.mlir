// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU

// Scale factors loaded from memory and expanded over their groups: the load
// and the elementwise op between get the reduced form of the expansion's
// layout (a backward hint), so no layout conversion is needed.
// CHECK: tile.load {{.*}} -> !tile.frag<4x2xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>, dim = 1, group = 128>>
// CHECK: tile.parallel {{.*}} -> !tile.frag<4x2xf32, #tile.reduced<
// CHECK: tile.expand {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [2, 2]>>
// Each thread reads one scale factor per group it holds (scalar, masked).
// GPU: memref.load %{{.*}} : memref<?x2xf32, strided<[?, 1]>>
tile.kernel @k(%x: memref<?x256xf32>, %sf: memref<?x2xf32, strided<[?, 1]>>, %y: memref<?x256xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %s = tile.load %sf[%r, %c0] : memref<?x2xf32, strided<[?, 1]>> -> !tile.frag<4x2xf32>
    %inv = tile.parallel %s : (!tile.frag<4x2xf32>) -> !tile.frag<4x2xf32> {
    ^bb0(%v: f32):
      %one = arith.constant 1.0 : f32
      %i = arith.divf %one, %v : f32
      tile.yield %i : f32
    }
    %e = tile.expand %inv {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x2xf32> -> !tile.frag<4x256xf32>
    %p = tile.parallel %t, %e : (!tile.frag<4x256xf32>, !tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%u: f32, %w: f32):
      %q = arith.mulf %u, %w : f32
      tile.yield %q : f32
    }
    tile.store %p, %y[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
