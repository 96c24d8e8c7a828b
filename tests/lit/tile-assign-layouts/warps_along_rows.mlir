// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU

// The schedule field warps_along_rows (KernelBuilder::warpsAlongRows) gives
// warps to the first dimension first: each of the four 256-wide rows lies in
// one warp (lanes along the row), so the row's max is five shuffles with no
// shared-memory exchange and no barrier. Without the field (@row_max_default)
// each row spreads over the four warps, which exchange through shared memory.
// CHECK: tile.load {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [4, 1]>>
// CHECK: tile.reduce max {{.*}} -> !tile.frag<4x1xf32, #tile.reduced<#tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [4, 1]>, dim = 1, group = 256>>
// GPU-LABEL: gpu.func @row_max
// GPU-NOT: workgroup(
// GPU-COUNT-5: gpu.shuffle xor
// GPU-NOT: gpu.barrier
// GPU: gpu.return
tile.kernel @row_max(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {schedule = #tile.schedule<max_access_bytes = 4, warps_along_rows = true>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %m = tile.reduce max %t {dim = 1 : i64, group = 256 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x1xf32>
    tile.store %m, %out[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}

// CHECK: tile.load {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [1, 4]>>
// GPU-LABEL: gpu.func @row_max_default
// GPU-SAME: workgroup(
// GPU: gpu.barrier
tile.kernel @row_max_default(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {schedule = #tile.schedule<max_access_bytes = 4>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %m = tile.reduce max %t {dim = 1 : i64, group = 256 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x1xf32>
    tile.store %m, %out[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}
