// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s

// On the CPU a carried fragment is a buffer; each iteration copies the value
// it yields into a buffer of its own, so an op that writes its buffer again
// in the next iteration never overwrites the carried value the body reads.
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (memref<4x256xf32>)
// CHECK: memref.copy %[[NEXT:.*]], %[[OWN:.*]] : memref<4x256xf32> to memref<4x256xf32>
// CHECK: scf.yield %[[OWN]] : memref<4x256xf32>
tile.kernel @acc(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%c1) {
    %z = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %s = scf.for %i = %c4 to %m step %c4 iter_args(%acc = %z) -> (!tile.frag<4x256xf32>) {
      %t = tile.load %x[%i, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
      %n = tile.parallel %acc, %t : (!tile.frag<4x256xf32>, !tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      scf.yield %n : !tile.frag<4x256xf32>
    }
    %r = tile.reduce sum %s {dim = 1 : i64, group = 256 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x1xf32>
    tile.store %r, %out[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}
