// RUN: tk-opt %s -split-input-file -tile-assign-layouts -tile-lower-to-gpu -canonicalize -cse | FileCheck %s

// 8 matrices of 3 x 3 on 32 threads, one element a thread (lanes [2, 4, 4]:
// the 3 x 3 padded to 4 x 4). The column sums (dim 1) are on all four lanes
// of a column, the padding row's too, and a division on them is split over
// those four lanes (SplitReplicatedWork.cpp): each computes one matrix's and
// the others take it by a shuffle. The denominators loaded from memory must
// then be on the padding row's lane as well: the load is guarded by the
// matrix and the column, not by the row (which is 0 in the reduced tile).
// Guarded by the row, the padding lane divided by zero for the matrix it
// was given and every lane took that quotient (Sinkhorn's backward at n = 3).
// CHECK-LABEL: gpu.func @padded_denominators
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %c3 : index
// CHECK-NEXT: %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %c3 : index
// CHECK: %[[M:.*]] = arith.cmpi ult, %{{.*}}, %dim_{{[0-9]+}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[M]], %[[COL]] : i1
// CHECK-NEXT: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: memref.load %arg1
// CHECK: arith.divf {{.*}} : vector<1xf32>
// CHECK-NOT: arith.divf
// CHECK-COUNT-4: gpu.shuffle  xor %{{[0-9]+}}, %{{[0-9]+}}, %c32_i32{{.*}} : f32
tile.kernel @padded_denominators(%x: memref<?x3x3xf32>, %d: memref<?x1x3xf32>, %y: memref<?x3x3xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x3x3xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c8 : index
    %t = tile.load %x[%r, %c0, %c0] : memref<?x3x3xf32> -> !tile.frag<8x3x3xf32>
    %s = tile.reduce sum %t {dim = 1 : i64, group = 3 : i64} : !tile.frag<8x3x3xf32> -> !tile.frag<8x1x3xf32>
    %e = tile.load %d[%r, %c0, %c0] : memref<?x1x3xf32> -> !tile.frag<8x1x3xf32>
    %q = tile.parallel %s, %e : (!tile.frag<8x1x3xf32>, !tile.frag<8x1x3xf32>) -> !tile.frag<8x1x3xf32> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.divf %u, %v : f32
      tile.yield %w : f32
    }
    %z = tile.expand %q {dim = 1 : i64, group = 3 : i64} : !tile.frag<8x1x3xf32> -> !tile.frag<8x3x3xf32>
    tile.store %z, %y[%r, %c0, %c0] : !tile.frag<8x3x3xf32>, memref<?x3x3xf32>
  }
  tile.return
}

// -----

// The same through a reduction of a reduction: one denominator per matrix
// ([8, 1, 1], reduced along the rows and then the columns, both padded),
// expanded along the columns before the split division. Its load is guarded
// by the matrix alone.
// CHECK-LABEL: gpu.func @padded_matrix_denominators
// CHECK: %[[M:.*]] = arith.cmpi ult, %{{.*}}, %dim_{{[0-9]+}} : index
// CHECK-NEXT: scf.if %[[M]] -> (f32) {
// CHECK-NEXT: memref.load %arg1
// CHECK: arith.divf {{.*}} : vector<1xf32>
tile.kernel @padded_matrix_denominators(%x: memref<?x3x3xf32>, %d: memref<?x1x1xf32>, %y: memref<?x3x3xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x3x3xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c8 : index
    %t = tile.load %x[%r, %c0, %c0] : memref<?x3x3xf32> -> !tile.frag<8x3x3xf32>
    %s = tile.reduce sum %t {dim = 1 : i64, group = 3 : i64} : !tile.frag<8x3x3xf32> -> !tile.frag<8x1x3xf32>
    %e = tile.load %d[%r, %c0, %c0] : memref<?x1x1xf32> -> !tile.frag<8x1x1xf32>
    %f = tile.expand %e {dim = 2 : i64, group = 3 : i64} : !tile.frag<8x1x1xf32> -> !tile.frag<8x1x3xf32>
    %q = tile.parallel %s, %f : (!tile.frag<8x1x3xf32>, !tile.frag<8x1x3xf32>) -> !tile.frag<8x1x3xf32> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.divf %u, %v : f32
      tile.yield %w : f32
    }
    %z = tile.expand %q {dim = 1 : i64, group = 3 : i64} : !tile.frag<8x1x3xf32> -> !tile.frag<8x3x3xf32>
    tile.store %z, %y[%r, %c0, %c0] : !tile.frag<8x3x3xf32>, memref<?x3x3xf32>
  }
  tile.return
}
