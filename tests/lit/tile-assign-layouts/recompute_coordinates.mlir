// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A row iota (and a map over it) laid out before the reduction it is later
// combined with: the map that combines them takes the reduction's layout,
// since the coordinates can be made again, and the iota and its map are
// recomputed in that layout right before it (a few instructions; a relayout
// would cost shared memory and two barriers). The first iota keeps its
// default layout for its other user, the store of the row numbers.
// CHECK-LABEL: tile.kernel @rows_plus_max
// CHECK: tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32, [[B:#tile.blocked<[^>]*>]]>
// CHECK: %[[M:.*]] = tile.reduce max {{.*}} -> !tile.frag<4x1xf32, [[R:#tile.reduced<.*>]]>
// CHECK: %[[I:.*]] = tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32, [[R]]>
// CHECK: %[[F:.*]] = tile.parallel %[[I]] : (!tile.frag<4x1xi32, [[R]]>) -> !tile.frag<4x1xf32, [[R]]>
// CHECK: tile.parallel %[[F]], %[[M]] : (!tile.frag<4x1xf32, [[R]]>, !tile.frag<4x1xf32, [[R]]>) -> !tile.frag<4x1xf32, [[R]]>
// PTX: .entry rows_plus_max
// PTX-NOT: bar.sync{{.*}}
// PTX: ret;
tile.kernel @rows_plus_max(%x: memref<?x32xf32>, %y: memref<?x1xf32>, %z: memref<?x1xi32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %i = tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32>
    %f = tile.parallel %i : (!tile.frag<4x1xi32>) -> !tile.frag<4x1xf32> {
    ^bb0(%v: i32):
      %w = arith.sitofp %v : i32 to f32
      tile.yield %w : f32
    }
    tile.store %i, %z[%c0, %c0] : !tile.frag<4x1xi32>, memref<?x1xi32>
    %t = tile.load %x[%c0, %c0] : memref<?x32xf32> -> !tile.frag<4x32xf32>
    %m = tile.reduce max %t {dim = 1 : i64, group = 32 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x1xf32>
    %s = tile.parallel %f, %m : (!tile.frag<4x1xf32>, !tile.frag<4x1xf32>) -> !tile.frag<4x1xf32> {
    ^bb0(%u: f32, %v: f32):
      %a = arith.addf %u, %v : f32
      tile.yield %a : f32
    }
    tile.store %s, %y[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}

// The same inside a loop, with the coordinates made before it from a
// block-uniform value (the grid index, captured by the map's region): they
// are made again in the body, right before their user, where both the
// capture and the iota are in scope.
// CHECK-LABEL: tile.kernel @rows_in_loop
// CHECK: scf.for
// CHECK: %[[M:.*]] = tile.reduce max {{.*}} -> !tile.frag<4x1xf32, [[R:#tile.reduced<.*>]]>
// CHECK: %[[I:.*]] = tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32, [[R]]>
// CHECK: %[[F:.*]] = tile.parallel %[[I]] : (!tile.frag<4x1xi32, [[R]]>) -> !tile.frag<4x1xf32, [[R]]>
// CHECK: tile.parallel %[[F]], %[[M]]
// PTX: .entry rows_in_loop
tile.kernel @rows_in_loop(%x: memref<?x32xf32>, %y: memref<?x1xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x32xf32>
  tile.grid (%b) in (%c1) {
    %i = tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32>
    %bi = arith.index_cast %b : index to i32
    %f = tile.parallel %i : (!tile.frag<4x1xi32>) -> !tile.frag<4x1xf32> {
    ^bb0(%v: i32):
      %s = arith.addi %v, %bi : i32
      %w = arith.sitofp %s : i32 to f32
      tile.yield %w : f32
    }
    scf.for %r = %c0 to %m step %c4 {
      %t = tile.load %x[%r, %c0] : memref<?x32xf32> -> !tile.frag<4x32xf32>
      %mx = tile.reduce max %t {dim = 1 : i64, group = 32 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x1xf32>
      %s = tile.parallel %f, %mx : (!tile.frag<4x1xf32>, !tile.frag<4x1xf32>) -> !tile.frag<4x1xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      tile.store %s, %y[%r, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
    }
  }
  tile.return
}
