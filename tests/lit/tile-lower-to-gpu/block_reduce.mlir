// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// The absmax of a 32 x 64 block in two steps: along the rows in groups of 64,
// then down the 32 rows. The second reduction's layout is a reduced layout of
// the first; the expansions undo them in reverse order.
// LAYOUT: tile.reduce absmax {{.*}} -> !tile.frag<32x1xf32, #tile.reduced<#tile.blocked<[[P:.*]]>, dim = 1, group = 64>>
// LAYOUT: tile.reduce max {{.*}} -> !tile.frag<1x1xf32, #tile.reduced<#tile.reduced<#tile.blocked<[[P]]>, dim = 1, group = 64>, dim = 0, group = 32>>
// LAYOUT: tile.expand {{.*}} -> !tile.frag<32x1xf32, #tile.reduced<#tile.blocked<[[P]]>, dim = 1, group = 64>>
// LAYOUT: tile.expand {{.*}} -> !tile.frag<32x64xf32, #tile.blocked<[[P]]>>
//
// On the GPU: butterflies along the rows, then across the warps holding the
// rows (shared memory); the block's value is written once, by the thread
// holding its first element. The first reduction left each thread's four
// slots and the 16 lanes of a row equal: the second reduces one value per
// thread, exchanges one word per warp and broadcasts the result.
// CHECK-LABEL: gpu.func @block_absmax
// CHECK-SAME: workgroup(%{{.*}} : memref<4x1x1xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-COUNT-4: gpu.shuffle xor {{.*}}, %c8_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.shuffle xor {{.*}}, %c16_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store {{.*}} : memref<?x?xf32>
// CHECK: vector.broadcast
// CHECK: arith.mulf
tile.kernel @block_absmax(%x: memref<?x64xf32>, %m: memref<?x?xf32>, %y: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<32x64xf32>
    %r = tile.reduce absmax %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x64xf32> -> !tile.frag<32x1xf32>
    %a = tile.reduce max %r {dim = 0 : i64, group = 32 : i64} : !tile.frag<32x1xf32> -> !tile.frag<1x1xf32>
    tile.store %a, %m[%c0, %c0] : !tile.frag<1x1xf32>, memref<?x?xf32>
    %e0 = tile.expand %a {dim = 0 : i64, group = 32 : i64} : !tile.frag<1x1xf32> -> !tile.frag<32x1xf32>
    %e1 = tile.expand %e0 {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x1xf32> -> !tile.frag<32x64xf32>
    %p = tile.parallel %t, %e1 : (!tile.frag<32x64xf32>, !tile.frag<32x64xf32>) -> !tile.frag<32x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %q = arith.mulf %u, %v : f32
      tile.yield %q : f32
    }
    tile.store %p, %y[%c0, %c0] : !tile.frag<32x64xf32>, memref<?x64xf32>
  }
  tile.return
}
