// RUN: tk-opt %s -tile-to-cpu-llvm | FileCheck %s

// The CPU path converts to and from bf16 with integer arithmetic: no
// fptrunc / fpext on bf16 is left for LLVM, which would lower them to the
// __truncsfbf2 helper (absent from GCC 12's runtime) on hosts without native
// bf16 conversion, or to a native conversion that flushes denormals.
// CHECK: llvm.func @k(
// CHECK-NOT: llvm.fptrunc {{.*}} to bf16
// CHECK-NOT: llvm.fpext {{.*}} : bf16
// CHECK-NOT: bf16 to f32
// CHECK: llvm.return
tile.kernel @k(%x: memref<?x256xbf16, strided<[?, 1]>>, %out: memref<?x256xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xbf16, strided<[?, 1]>> -> !tile.frag<4x256xbf16>
    %f = tile.convert %t : !tile.frag<4x256xbf16> -> !tile.frag<4x256xf32>
    %y = tile.parallel %f : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%v: f32):
      %w = arith.mulf %v, %v : f32
      tile.yield %w : f32
    }
    %o = tile.convert %y : !tile.frag<4x256xf32> -> !tile.frag<4x256xbf16>
    tile.store %o, %out[%r, %c0] : !tile.frag<4x256xbf16>, memref<?x256xbf16>
  }
  tile.return
}
