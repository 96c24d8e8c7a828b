// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// An i64 max (topkColumns' packed keys): shuffles move 32-bit values, so each
// butterfly step moves the low and the high half and joins them again; the
// exchange across warps goes through shared memory as i64.
// CHECK-LABEL: gpu.func @i64max
// CHECK: arith.maxsi {{.*}} : i64
// CHECK: arith.trunci {{.*}} : i64 to i32
// CHECK: arith.shrui {{.*}} : i64
// CHECK: gpu.shuffle xor {{.*}} : i32
// CHECK: gpu.shuffle xor {{.*}} : i32
// CHECK: arith.shli {{.*}} : i64
// CHECK: arith.maxsi {{.*}} : i64
// CHECK-NOT: gpu.shuffle xor {{.*}} : i64
// CHECK: memref.store {{.*}} : memref<{{.*}}xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
tile.kernel @i64max(%x: memref<?x256xi64>, %y: memref<?x1xi64>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x256xi64>
  tile.grid (%b) in (%m) {
    %t = tile.load %x[%b, %c0] : memref<?x256xi64> -> !tile.frag<1x256xi64>
    %a = tile.reduce max %t {dim = 1 : i64, group = 256 : i64} : !tile.frag<1x256xi64> -> !tile.frag<1x1xi64>
    tile.store %a, %y[%b, %c0] : !tile.frag<1x1xi64>, memref<?x1xi64>
  }
  tile.return
}
