// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// A shared tile buffer becomes a workgroup attribution; tile.copy is a
// distributed 16-byte load/store followed by a block barrier.
// CHECK: gpu.func @stage{{.*}} workgroup(%[[BUF:.*]] : memref<4x64xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: vector.load %{{.*}} : memref<?x64xbf16, strided<[?, 1]>>, vector<8xbf16>
// CHECK: vector.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[BUF]]
tile.kernel @stage(%x: memref<?x64xbf16, strided<[?, 1]>> {tile.align = 16 : i64}, %y: memref<?x64xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x64xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %buf = tile.alloc : memref<4x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %x[%r, %c0], %buf : memref<?x64xbf16, strided<[?, 1]>>, memref<4x64xbf16, #gpu.address_space<workgroup>>
    %t = tile.load %buf[%c0, %c0] : memref<4x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<4x64xbf16>
    %f = tile.convert %t : !tile.frag<4x64xbf16> -> !tile.frag<4x64xf32>
    tile.store %f, %y[%r, %c0] : !tile.frag<4x64xf32>, memref<?x64xf32>
  }
  tile.return
}
