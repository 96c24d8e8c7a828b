// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.scan down the 16 rows of a [16, 32] tile: the tile goes through a
// shared buffer, in log2(16) = 4 steps of Hillis and Steele, each a write,
// a barrier, a read of the element 2^k rows up (none for the first rows:
// a select of zero) and a barrier; exclusive subtracts the input.
// CHECK-LABEL: gpu.func @column_offsets
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: gpu.barrier
// CHECK: arith.cmpi uge
// CHECK: arith.select
// CHECK: arith.subi
// CPU-LABEL: func.func @column_offsets
// CPU: scf.for
// CPU: arith.cmpi ult
// PTX: bar.sync
tile.kernel @column_offsets(%c: memref<16x32xi32>, %out: memref<16x32xi32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %c[%c0, %c0] : memref<16x32xi32> -> !tile.frag<16x32xi32>
    %p = tile.scan %t {dim = 0 : i64, exclusive} : !tile.frag<16x32xi32> -> !tile.frag<16x32xi32>
    tile.store %p, %out[%c0, %c0] : !tile.frag<16x32xi32>, memref<16x32xi32>
  }
  tile.return
}

// tile.count_equal along the 32 keys of each row: every element compares
// its key with the row's keys from the shared buffer in a loop; `before`
// counts only the keys left of it (its stable rank among equal keys).
// CHECK-LABEL: gpu.func @ranks
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi ult
// CHECK: arith.extui
// CHECK: gpu.barrier
// CPU-LABEL: func.func @ranks
// CPU: scf.for
// CPU: arith.cmpi eq
// CPU: arith.cmpi ult
tile.kernel @ranks(%k: memref<8x32xi64>, %out: memref<8x32xi32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %k[%c0, %c0] : memref<8x32xi64> -> !tile.frag<8x32xi64>
    %r = tile.count_equal %t {dim = 1 : i64, before} : !tile.frag<8x32xi64> -> !tile.frag<8x32xi32>
    tile.store %r, %out[%c0, %c0] : !tile.frag<8x32xi32>, memref<8x32xi32>
  }
  tile.return
}
