// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A block's count (a [1, 1] total of a [4, 64] tile, reduced along both
// dimensions) added to an int64 counter that every block updates: one thread
// adds it (the leader of the reduction's group), atomically.
// CHECK-LABEL: gpu.func @count
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (i64, memref<1x3xi64>) -> i64
// CHECK-NOT: memref.store {{.*}} memref<1x3xi64>
// CPU-LABEL: func.func @count
// CPU: memref.atomic_rmw addi
// PTX: atom.global.add.u64
tile.kernel @count(%x: memref<?x64xi32>, %n: memref<1x3xi64>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x64xi32>
  %blocks = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%blocks) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xi32> -> !tile.frag<4x64xi32>
    %rows = tile.reduce sum %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<4x64xi32> -> !tile.frag<4x1xi32>
    %all = tile.reduce sum %rows {dim = 0 : i64, group = 4 : i64} : !tile.frag<4x1xi32> -> !tile.frag<1x1xi32>
    %wide = tile.parallel %all : (!tile.frag<1x1xi32>) -> !tile.frag<1x1xi64> {
    ^bb0(%v: i32):
      %e = arith.extsi %v : i32 to i64
      tile.yield %e : i64
    }
    tile.store %wide, %n[%c0, %c1] {atomic_add} : !tile.frag<1x1xi64>, memref<1x3xi64>
  }
  tile.return
}
