// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s
// RUN: tk-opt %s -tile-to-cpu-llvm | FileCheck %s --check-prefix=LLVM

// The kernel becomes a function over the same tensors (f8 as i8); the grid a
// loop over blocks; fragments heap buffers; each tile op a loop nest.
// CHECK: func.func @k(%{{.*}}: memref<?x256xbf16, strided<[?, 1]>>, %{{.*}}: memref<?x256xi8>, %{{.*}}: memref<?x2xf32, strided<[?, ?]>>)
// CHECK-DAG: memref.alloc() : memref<4x256xbf16>
// CHECK-DAG: memref.alloc() : memref<4x2xf32>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// Loads read zero outside the tensor.
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<?x256xbf16, strided<[?, 1]>>
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : bf16
// The group reduction walks its 128 elements in order.
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maxnumf
// The e4m3 conversion is integer arithmetic (as on sm_80).
// CHECK: arith.trunci {{.*}} : i32 to i8
// CHECK: memref.dealloc
// LLVM: llvm.func @k(
// LLVM-NOT: tile.
tile.kernel @k(%x: memref<?x256xbf16, strided<[?, 1]>>, %out: memref<?x256xf8E4M3FN>, %sf: memref<?x2xf32, strided<[?, ?]>>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xbf16, strided<[?, 1]>> -> !tile.frag<4x256xbf16>
    %f = tile.convert %t : !tile.frag<4x256xbf16> -> !tile.frag<4x256xf32>
    %a = tile.reduce absmax %f {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x2xf32>
    tile.store %a, %sf[%r, %c0] : !tile.frag<4x2xf32>, memref<?x2xf32, strided<[?, ?]>>
    %q = tile.convert %f : !tile.frag<4x256xf32> -> !tile.frag<4x256xf8E4M3FN>
    tile.store %q, %out[%r, %c0] : !tile.frag<4x256xf8E4M3FN>, memref<?x256xf8E4M3FN>
  }
  tile.return
}
