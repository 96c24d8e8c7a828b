// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A reduction's result held by the threads that reduced it (replicated) and
// scattered, which wants each element held once: the DSL's relayout() leaves
// its result's layout to inference, which gives it the scatter's (the
// default blocked layout), while its input keeps the reduced layout.
// CHECK: tile.reduce max {{.*}} -> !tile.frag<4x8x1xi32, #tile.reduced<#tile.blocked<{{.*}}>, dim = 2, group = 32>>
// CHECK: tile.relayout {{.*}} : !tile.frag<4x8x1xi32, #tile.reduced<{{.*}}>> -> !tile.frag<4x8x1xi32, #tile.blocked<{{.*}}>>
// CHECK: tile.scatter {{.*}} : !tile.frag<4x8x1xi32, #tile.blocked<{{.*}}>>
// PTX: bar.sync
// PTX: st.global.b32
tile.kernel @k(%x: memref<?x8x32xi32>, %out: memref<?xi32>, %idx: memref<?x8x1xi32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0, %c0] : memref<?x8x32xi32> -> !tile.frag<4x8x32xi32>
    %m = tile.reduce max %t {dim = 2 : i64, group = 32 : i64} : !tile.frag<4x8x32xi32> -> !tile.frag<4x8x1xi32>
    %r = tile.relayout %m : !tile.frag<4x8x1xi32> -> !tile.frag<4x8x1xi32>
    %i = tile.load %idx[%c0, %c0, %c0] : memref<?x8x1xi32> -> !tile.frag<4x8x1xi32>
    tile.scatter %r, %out[%i] : !tile.frag<4x8x1xi32>, memref<?xi32>, !tile.frag<4x8x1xi32>
  }
  tile.return
}
