// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// tile.copy {async} is one 16-byte nvgpu.device_async_copy per chunk (cp.async.cg),
// zero-filled past the tensor's last row through its source element count;
// commit_copies and wait_copies are the cp.async group ops, the wait followed
// by a block barrier. Buffers are declared 16-byte aligned.
// CHECK-LABEL: gpu.func @stage
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<2x4x64xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %c8, %c0 : index
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %[[N]] {bypassL1} : memref<?x64xbf16, strided<[?, 1]>> to memref<4x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier

// The narrow tensor's 2-byte chunks cannot be cp.async copies: synchronous, with a remark.
// REMARK: remark: copy into 'memref<4x63xbf16{{.*}}>' is synchronous (no cp.async): its 2-byte chunks are not a cp.async size (4, 8 or 16)
tile.kernel @stage(%x: memref<?x64xbf16, strided<[?, 1]>> {tile.align = 16 : i64}, %y: memref<?x64xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x64xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %buf = tile.alloc : memref<2x4x64xbf16, #gpu.address_space<workgroup>>
    %v = memref.subview %buf[%c1, 0, 0] [1, 4, 64] [1, 1, 1] : memref<2x4x64xbf16, #gpu.address_space<workgroup>> to memref<4x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
    tile.copy %x[%r, %c0], %v {async} : memref<?x64xbf16, strided<[?, 1]>>, memref<4x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
    tile.commit_copies
    tile.wait_copies {pending = 1 : i64}
    %t = tile.load %v[%c0, %c0] : memref<4x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>> -> !tile.frag<4x64xbf16>
    %f = tile.convert %t : !tile.frag<4x64xbf16> -> !tile.frag<4x64xf32>
    tile.store %f, %y[%r, %c0] : !tile.frag<4x64xf32>, memref<?x64xf32>
  }
  tile.return
}

tile.kernel @narrow(%x: memref<?x63xbf16> {tile.align = 2 : i64}, %y: memref<?x63xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<4x63xbf16, #gpu.address_space<workgroup>>
    tile.copy %x[%c0, %c0], %buf {async} : memref<?x63xbf16>, memref<4x63xbf16, #gpu.address_space<workgroup>>
    tile.commit_copies
    tile.wait_copies {pending = 0 : i64}
    %t = tile.load %buf[%c0, %c0] : memref<4x63xbf16, #gpu.address_space<workgroup>> -> !tile.frag<4x63xbf16>
    tile.store %t, %y[%c0, %c0] : !tile.frag<4x63xbf16>, memref<?x63xbf16>
  }
  tile.return
}

// A column of fp32 values (one per row, rows 56 elements apart) has no whole
// vectors, but each 4-byte element is a cp.async of its own (cp.async.ca: no
// L1 bypass below 16 bytes), zero-filled past the last row like a vector.
// CHECK-LABEL: gpu.func @column
// CHECK: %[[N1:.*]] = arith.select %{{.*}}, %c1, %c0 : index
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 1, %[[N1]] : memref<?x56xf32> to memref<128x1xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: bypassL1
// CHECK: nvvm.cp.async.commit.group
// REMARK-NOT: remark: copy into 'memref<128x1xf32
tile.kernel @column(%x: memref<?x56xf32> {tile.align = 4 : i64}, %y: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %x, %c0 : memref<?x56xf32>
  %n = arith.ceildivui %m, %c128 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c128 : index
    %buf = tile.alloc : memref<128x1xf32, #gpu.address_space<workgroup>>
    tile.copy %x[%r, %c3], %buf {async} : memref<?x56xf32>, memref<128x1xf32, #gpu.address_space<workgroup>>
    tile.commit_copies
    tile.wait_copies {pending = 0 : i64}
    %t = tile.load %buf[%c0, %c0] : memref<128x1xf32, #gpu.address_space<workgroup>> -> !tile.frag<128x1xf32>
    tile.store %t, %y[%r, %c0] : !tile.frag<128x1xf32>, memref<?x1xf32>
  }
  tile.return
}
