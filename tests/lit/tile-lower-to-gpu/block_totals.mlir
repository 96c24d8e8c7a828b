// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// Block totals of a persistent grid: each thread carries its partial count
// (its in-tile slots, sign-extended to i64) through the tile loop's
// iter_args; no barrier or atomic per tile. After the loop: a butterfly over
// the lanes (64-bit values as two 32-bit shuffles), the two warps' sums
// through shared memory, and one atomic add by thread 0.
// ROUNDTRIP: %[[N:.*]] = tile.grid (%{{.*}}) in (%{{.*}}) -> (i64) {
// ROUNDTRIP: tile.yield %{{.*}} : !tile.frag<2x128xi32
// ROUNDTRIP: } {persistent = 4 : i64}
// ROUNDTRIP: tile.atomic_add %[[N]], %{{.*}}[%{{.*}}, %{{.*}}] : i64, memref<1x3xi64>
// CHECK-LABEL: gpu.func @count
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i64)
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.atomic_rmw
// CHECK: arith.extsi {{.*}} : i32 to i64
// CHECK: scf.yield
// CHECK: gpu.shuffle xor {{.*}} : i32
// CHECK: gpu.shuffle xor {{.*}} : i32
// CHECK: memref.store {{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (i64, memref<1x3xi64>) -> i64
// The CPU path runs every tile in one loop nest that carries the total.
// CPU-LABEL: func.func @count
// CPU: scf.for {{.*}} iter_args({{.*}}) -> (i64)
// CPU: arith.extsi {{.*}} : i32 to i64
// CPU: memref.atomic_rmw addi
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: atom.global.add.u64
tile.kernel @count(%x: memref<?x128xi32>, %n: memref<1x3xi64>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %x, %c0 : memref<?x128xi32>
  %blocks = arith.ceildivui %m, %c2 : index
  %total = tile.grid (%b) in (%blocks) -> (i64) {
    %r = arith.muli %b, %c2 : index
    %t = tile.load %x[%r, %c0] : memref<?x128xi32> -> !tile.frag<2x128xi32>
    tile.yield %t : !tile.frag<2x128xi32>
  } {persistent = 4 : i64}
  tile.atomic_add %total, %n[%c0, %c1] : i64, memref<1x3xi64>
  tile.return
}
