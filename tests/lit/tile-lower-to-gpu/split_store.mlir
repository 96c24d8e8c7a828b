// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// Packed UE8M0 scale factors: the group maxima of a 4 x 1024 tile (8 groups
// per row) become bytes, and group c of row r goes to byte (r, c / 4, c % 4)
// of a (tokens, words, 4) byte view whose word stride is not a row stride.
// CHECK-LABEL: gpu.func @packed
// CHECK: arith.divui {{.*}}, %c4
// CHECK: arith.remui {{.*}}, %c4
// CHECK: memref.store {{.*}} : memref<?x?x4xi8, strided<[4, ?, 1]>>
// CPU-LABEL: func.func @packed
// CPU: arith.divui
// CPU: arith.remui
// CPU: memref.store {{.*}} : memref<?x?x4xi8, strided<[4, ?, 1]>>
tile.kernel @packed(%x: memref<?x1024xf32>, %sf: memref<?x?x4xi8, strided<[4, ?, 1]>>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x1024xf32> -> !tile.frag<4x1024xf32>
    %a = tile.reduce absmax %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x1024xf32> -> !tile.frag<4x8xf32>
    %q = tile.parallel %a : (!tile.frag<4x8xf32>) -> !tile.frag<4x8xi8> {
    ^bb0(%v: f32):
      %u = arith.bitcast %v : f32 to i32
      %c23 = arith.constant 23 : i32
      %e = arith.shrui %u, %c23 : i32
      %y = arith.trunci %e : i32 to i8
      tile.yield %y : i8
    }
    tile.store %q, %sf[%c0, %c0] {split_last = 4 : i64} : !tile.frag<4x8xi8>, memref<?x?x4xi8, strided<[4, ?, 1]>>
  }
  tile.return
}
