// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s

// tile.pipeline carries fragments under the same rules as scf.for
// (ScfLayouts.cpp), so the layouts may be assigned before or after
// tile-pipeline-copies: the carried value's layout is its initial value's,
// in the result, the block argument and the yielded sum.
// CHECK-LABEL: tile.kernel @acc
// CHECK: %[[Z:.*]] = tile.load %{{.*}} : memref<?x256xf32> -> !tile.frag<4x256xf32, #[[L:tile.blocked<[^>]*>]]>
// CHECK: %[[S:.*]] = tile.pipeline %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (!tile.frag<4x256xf32, #[[L]]>)
// CHECK: tile.yield %{{.*}} : !tile.frag<4x256xf32, #[[L]]>
// CHECK: tile.reduce sum %[[S]]
tile.kernel @acc(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<4x256xf32, #gpu.address_space<workgroup>>
    %z = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %s = tile.pipeline %i = %c1 to %c4 iter_args(%acc = %z) -> (!tile.frag<4x256xf32>) {stages = 2 : i64} {
      %row = arith.muli %i, %c4 : index
      tile.copy %x[%row, %c0], %buf : memref<?x256xf32>, memref<4x256xf32, #gpu.address_space<workgroup>>
      %t = tile.load %buf[%c0, %c0] : memref<4x256xf32, #gpu.address_space<workgroup>> -> !tile.frag<4x256xf32>
      %n = tile.parallel %acc, %t : (!tile.frag<4x256xf32>, !tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      tile.yield %n : !tile.frag<4x256xf32>
    }
    %r = tile.reduce sum %s {dim = 1 : i64, group = 256 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x1xf32>
    tile.store %r, %out[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}
