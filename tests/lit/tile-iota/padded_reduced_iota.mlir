// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -cse | FileCheck %s

// The coordinate along a dimension reduced whole is 0 on every lane of the
// group, the padding ones too: 3 rows on 4 lanes (8 matrices of 3 x 3 on 32
// threads), where the padding lane's coordinate divided by the group would be
// 1. A division on the coordinate is split over the group's lanes
// (SplitReplicatedWork.cpp), so every lane would take what the padding lane
// computed; the coordinate is a constant instead (padded_reduced_load.mlir
// is the same for loads).
// CHECK-LABEL: gpu.func @padded_row_coordinate
// CHECK-NOT: arith.divui %{{.*}}, %c3 : index
// CHECK: arith.divf
// CHECK: gpu.return
tile.kernel @padded_row_coordinate(%x: memref<?x3x3xf32>, %y: memref<?x1x3xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x3x3xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c8 : index
    %t = tile.load %x[%r, %c0, %c0] : memref<?x3x3xf32> -> !tile.frag<8x3x3xf32>
    %s = tile.reduce sum %t {dim = 1 : i64, group = 3 : i64} : !tile.frag<8x3x3xf32> -> !tile.frag<8x1x3xf32>
    %i = tile.iota {dim = 1 : i64} : !tile.frag<8x1x3xi32>
    %q = tile.parallel %s, %i : (!tile.frag<8x1x3xf32>, !tile.frag<8x1x3xi32>) -> !tile.frag<8x1x3xf32> {
    ^bb0(%u: f32, %k: i32):
      %three = arith.constant 3.0 : f32
      %f = arith.sitofp %k : i32 to f32
      %d = arith.addf %f, %three : f32
      %w = arith.divf %u, %d : f32
      tile.yield %w : f32
    }
    tile.store %q, %y[%r, %c0, %c0] : !tile.frag<8x1x3xf32>, memref<?x1x3xf32>
  }
  tile.return
}
