// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -cse | FileCheck %s

// A row of 1000 f32 staged in shared memory and read back by 64 threads of
// 4 elements each: the fourth chunk of threads 58-63 lies past column 999.
// In global memory such a chunk is read at a clamped address (the tensor's
// first element) and zeroed by a select, so that a thread's loads issue back
// to back; in shared memory that read would race with the thread writing the
// buffer's first element (racecheck reports it), so the chunk sits in an
// scf.if whose else yields zeros.
// CHECK-LABEL: gpu.func @staged_row
// CHECK: vector.load %arg0
// CHECK: scf.if
// CHECK: vector.load %{{.*}} : memref<1x1000xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: } else {
// CHECK-NOT: arith.select %{{.*}}, %{{.*}}, %c0 : index
// CHECK: gpu.return
tile.kernel @staged_row(%x: memref<?x1000xf32> {tile.align = 16 : i64},
                        %y: memref<?x1000xf32> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x1000xf32>
  tile.grid (%r) in (%n) {
    %buf = tile.alloc : memref<1x1000xf32, #gpu.address_space<workgroup>>
    %t = tile.load %x[%r, %c0] : memref<?x1000xf32> -> !tile.frag<1x1000xf32>
    tile.store %t, %buf[%c0, %c0] : !tile.frag<1x1000xf32>, memref<1x1000xf32, #gpu.address_space<workgroup>>
    tile.barrier
    %s = tile.load %buf[%c0, %c0] : memref<1x1000xf32, #gpu.address_space<workgroup>> -> !tile.frag<1x1000xf32>
    tile.store %s, %y[%r, %c0] : !tile.frag<1x1000xf32>, memref<?x1000xf32>
  }
  tile.return
}
