// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -cse | FileCheck %s

// A tile of 128 rows at a multiple of 128, in a tensor whose rows are a
// promised multiple of 128, lies wholly inside or wholly outside it: every
// chunk is checked as "origin < rows", one comparison for the whole tile.
// CHECK-LABEL: gpu.func @whole_tiles
// CHECK: %[[ROW:.*]] = arith.muli %block_id_x, %c128
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: arith.cmpi ult, %[[ROW]], %[[N]]
// CHECK-NOT: arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: %[[M:.*]] = memref.dim %arg1, %c0
// CHECK: arith.cmpi ult, %[[ROW]], %[[M]]
// CHECK-NOT: arith.cmpi ult, %{{.*}}, %[[M]]
// CHECK: gpu.return
tile.kernel @whole_tiles(%x: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>},
                         %y: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %tiles = arith.divui %n, %c128 : index
  tile.grid (%r) in (%tiles) {
    %row = arith.muli %r, %c128 : index
    %t = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.frag<128x64xf32>
    tile.store %t, %y[%row, %c0] : !tile.frag<128x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// Without the promise (rows a multiple of 64 only) the last tile may be cut:
// each of the thread's 16 chunks is checked on its own row.
// CHECK-LABEL: gpu.func @cut_tiles
// CHECK: %[[N2:.*]] = memref.dim %arg0, %c0
// CHECK-COUNT-16: arith.cmpi ult, %{{.*}}, %[[N2]]
tile.kernel @cut_tiles(%x: memref<?x64xf32> {tile.dim_multiples = array<i64: 64, 1>},
                       %y: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %tiles = arith.divui %n, %c128 : index
  tile.grid (%r) in (%tiles) {
    %row = arith.muli %r, %c128 : index
    %t = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.frag<128x64xf32>
    tile.store %t, %y[%row, %c0] : !tile.frag<128x64xf32>, memref<?x64xf32>
  }
  tile.return
}
