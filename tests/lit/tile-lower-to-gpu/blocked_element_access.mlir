// RUN: tk-opt %s -tile-lower-to-gpu -canonicalize | FileCheck %s

// split_last and atomic_add accesses of blocked fragments go element by
// element (a blocked layout is a reduction with groups of one): here 4
// elements per thread, each added atomically, and a split_last load and store
// (the last coordinate c goes to (c / 4, c % 4)) of 8 scale bytes per thread.
// CHECK-LABEL: gpu.func @k
// CHECK-COUNT-4: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-8: memref.load %{{.*}} : memref<?x14x4xi8
// CHECK-COUNT-8: memref.store %{{.*}} : memref<?x14x4xi8
tile.kernel @k(%x: memref<?x128xi32>, %s: memref<?x14x4xi8>, %t: memref<?x14x4xi8>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %x[%c0, %c0] : memref<?x128xi32> -> !tile.frag<1x128xi32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 1]>>
    tile.store %v, %x[%c0, %c0] {atomic_add} : !tile.frag<1x128xi32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 1]>>, memref<?x128xi32>
    %f = tile.load %s[%c0, %c0] {split_last = 4 : i64} : memref<?x14x4xi8> -> !tile.frag<4x56xi8, #tile.blocked<vec = [1, 8], lanes = [4, 8], warps = [1, 1]>>
    tile.store %f, %t[%c0, %c0] {split_last = 4 : i64} : !tile.frag<4x56xi8, #tile.blocked<vec = [1, 8], lanes = [4, 8], warps = [1, 1]>>, memref<?x14x4xi8>
  }
  tile.return
}
