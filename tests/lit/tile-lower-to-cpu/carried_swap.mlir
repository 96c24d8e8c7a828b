// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s

// On the CPU a loop's carried fragments are buffers, each yielded value
// copied into a buffer of its own. Carried values that swap places are
// staged first: copying b into a's buffer before a is read would lose a.
// CHECK-LABEL: func.func @swap
// CHECK: scf.for %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHECK-NEXT: memref.copy %[[B]], %[[SB:[^ ]*]] :
// CHECK-NEXT: memref.copy %[[A]], %[[SA:[^ ]*]] :
// CHECK-NEXT: memref.copy %[[SB]], %[[OA:[^ ]*]] :
// CHECK-NEXT: memref.copy %[[SA]], %[[OB:[^ ]*]] :
// CHECK-NEXT: scf.yield %[[OA]], %[[OB]]
tile.kernel @swap(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.grid (%b) in (%c1) {
    %a0 = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    %b0 = tile.load %x[%c1, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %a0, %bb = %b0) -> (!tile.frag<1x64xf32>, !tile.frag<1x64xf32>) {
      scf.yield %bb, %a : !tile.frag<1x64xf32>, !tile.frag<1x64xf32>
    }
    tile.store %r#0, %out[%c0, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
    tile.store %r#1, %out[%c1, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}
