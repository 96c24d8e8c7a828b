// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A coordinate made after the values it is combined with takes their layout,
// here a reduction's (the group scores dsl/Select.h ranks along another
// dimension): the iota of a (4, 8, 1) tile reduced along its last dimension
// is laid out as that reduction, and lowers there too.
// LAYOUT: tile.reduce max {{.*}} -> !tile.frag<4x8x1xf32, #tile.reduced<[[P:#tile.blocked<[^>]*>]], dim = 2, group = 16>>
// LAYOUT: tile.iota {dim = 1 : i64} : !tile.frag<4x8x1xi32, #tile.reduced<[[P]], dim = 2, group = 16>>
// PTX: .entry groups
tile.kernel @groups(%x: memref<?x8x16xf32>, %y: memref<?x8x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0, %c0] : memref<?x8x16xf32> -> !tile.frag<4x8x16xf32>
    %m = tile.reduce max %t {dim = 2 : i64, group = 16 : i64} : !tile.frag<4x8x16xf32> -> !tile.frag<4x8x1xf32>
    %g = tile.iota {dim = 1 : i64} : !tile.frag<4x8x1xi32>
    %s = tile.parallel %m, %g : (!tile.frag<4x8x1xf32>, !tile.frag<4x8x1xi32>) -> !tile.frag<4x8x1xf32> {
    ^bb0(%v: f32, %i: i32):
      %f = arith.sitofp %i : i32 to f32
      %r = arith.addf %v, %f : f32
      tile.yield %r : f32
    }
    tile.store %s, %y[%c0, %c0, %c0] : !tile.frag<4x8x1xf32>, memref<?x8x1xf32>
  }
  tile.return
}
