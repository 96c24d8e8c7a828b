// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts=columns-in-warps=false | FileCheck %s --check-prefix=ROWS

// A per-column absmax (reduced along the rows, dim 0) with its scale
// expanded back over the tile (per_channel_cast): the tile and every
// fragment of its shape put the 4 warps side by side along the 128 columns
// (32 positions of 4 values, f32 being the widest access: 8 lanes per warp
// across, 4 down), so that the 4 threads of a column share a warp. Without
// the option: the default, lanes across the columns and warps down the rows
// (each column spans the 4 warps).
// CHECK: tile.load {{.*}} -> !tile.frag<32x128xbf16, #tile.blocked<vec = [1, 4], lanes = [4, 8], warps = [1, 4]>>
// CHECK: tile.reduce absmax {{.*}} -> !tile.frag<1x128xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [4, 8], warps = [1, 4]>, dim = 0, group = 32>>
// CHECK: tile.expand {{.*}} -> !tile.frag<32x128xf32, #tile.blocked<vec = [1, 4], lanes = [4, 8], warps = [1, 4]>>
// CHECK: tile.parallel {{.*}} -> !tile.frag<32x128xf32, #tile.blocked<vec = [1, 4], lanes = [4, 8], warps = [1, 4]>>
// Row sums (reduced along dim 1) of another shape keep the default.
// CHECK: tile.reduce sum {{.*}} -> !tile.frag<32x1xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>, dim = 1, group = 64>>
// ROWS: tile.load {{.*}} -> !tile.frag<32x128xbf16, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [4, 1]>>
// ROWS: tile.reduce absmax {{.*}} -> !tile.frag<1x128xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [4, 1]>, dim = 0, group = 32>>
tile.kernel @k(%x: memref<?x128xbf16>, %y: memref<?x64xf32>, %out: memref<?x128xf32>, %sums: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x128xbf16> -> !tile.frag<32x128xbf16>
    %f = tile.convert %t : !tile.frag<32x128xbf16> -> !tile.frag<32x128xf32>
    %a = tile.reduce absmax %f {dim = 0 : i64, group = 32 : i64} : !tile.frag<32x128xf32> -> !tile.frag<1x128xf32>
    %e = tile.expand %a {dim = 0 : i64, group = 32 : i64} : !tile.frag<1x128xf32> -> !tile.frag<32x128xf32>
    %q = tile.parallel %f, %e : (!tile.frag<32x128xf32>, !tile.frag<32x128xf32>) -> !tile.frag<32x128xf32> {
    ^bb0(%v: f32, %s: f32):
      %m = arith.mulf %v, %s : f32
      tile.yield %m : f32
    }
    tile.store %q, %out[%c0, %c0] : !tile.frag<32x128xf32>, memref<?x128xf32>
    %r = tile.load %y[%c0, %c0] : memref<?x64xf32> -> !tile.frag<32x64xf32>
    %s = tile.reduce sum %r {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x64xf32> -> !tile.frag<32x1xf32>
    tile.store %s, %sums[%c0, %c0] : !tile.frag<32x1xf32>, memref<?x1xf32>
  }
  tile.return
}
