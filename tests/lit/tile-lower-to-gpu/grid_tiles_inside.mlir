// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -cse | FileCheck %s

// A grid of ceil(rows / 128) blocks over a tensor whose rows are a promised
// multiple of 128: block r's tile starts at 128 r < rows, so its load needs
// no bounds check at all (no comparison, no select of the loaded values).
// The store goes to another tensor, whose extent the grid does not divide:
// there the whole tile is still checked once, "origin < rows".
// CHECK-LABEL: gpu.func @grid_tiles
// CHECK: %[[ROW:.*]] = arith.muli %block_id_x, %c128
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK: %[[M:.*]] = memref.dim %arg1, %c0
// CHECK: arith.cmpi ult, %[[ROW]], %[[M]]
// CHECK-NOT: arith.cmpi
// CHECK: gpu.return
tile.kernel @grid_tiles(%x: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>},
                        %y: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %tiles = arith.ceildivui %n, %c128 : index
  tile.grid (%r) in (%tiles) {
    %row = arith.muli %r, %c128 : index
    %t = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.frag<128x64xf32>
    tile.store %t, %y[%row, %c0] : !tile.frag<128x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// Tiles of 128 rows over a grid of ceil(rows / 64) blocks: block r's tile at
// 128 r may start past the end, so the check stays.
// CHECK-LABEL: gpu.func @other_step
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: gpu.return
tile.kernel @other_step(%x: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>},
                        %y: memref<?x64xf32> {tile.dim_multiples = array<i64: 128, 1>}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %tiles = arith.ceildivui %n, %c64 : index
  tile.grid (%r) in (%tiles) {
    %row = arith.muli %r, %c128 : index
    %t = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.frag<128x64xf32>
    tile.store %t, %y[%row, %c0] : !tile.frag<128x64xf32>, memref<?x64xf32>
  }
  tile.return
}
