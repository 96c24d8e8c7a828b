// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A loop that carries a fragment carries each thread's slots (upstream's
// structural conversion of scf.for): 4x256 f32 over 128 threads is 8 values
// per thread, in registers across the iterations, reduced once after.
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: arith.addf
// CHECK: scf.yield %{{.*}} : vector<8xf32>
// CHECK: gpu.shuffle
// PTX: $L__BB0_2:
// PTX-SAME: ld.global.b32
// PTX-SAME: add.rn.f32
// PTX-SAME: bra {{.*}}$L__BB0_2;
// PTX-NOT: .local
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
