// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// A static grid extent bounds the block index: an extent of 1 makes it the
// constant 0 (no gpu.block_id at all), a larger one an upper bound for range
// analysis. A dynamic extent keeps a plain gpu.block_id.
// CHECK-LABEL: gpu.func @k
// CHECK-DAG: gpu.block_id  x{{$}}
// CHECK-DAG: gpu.block_id  z upper_bound 8
// CHECK-NOT: gpu.block_id  y
tile.kernel @k(%x: memref<?x1024xf32>, %y: memref<?x1024xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?x1024xf32>
  tile.grid (%r, %one, %eight) in (%n, %c1, %c8) {
    %row = arith.addi %r, %one : index
    %col = arith.muli %eight, %c128 : index
    %t = tile.load %x[%row, %col] : memref<?x1024xf32> -> !tile.frag<1x128xf32>
    tile.store %t, %y[%row, %col] : !tile.frag<1x128xf32>, memref<?x1024xf32>
  }
  tile.return
}
