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

// Without a user that wants a layout (an elementwise op with a loaded tile
// of the shape), the relayout's result takes the default layout, never its
// input's: the column sums held once per column, as the load holds its
// elements (engram_grad_w_reduce's gradient update).
// CHECK-LABEL: tile.kernel @no_hint
// CHECK: %[[S:.*]] = tile.reduce sum {{.*}} -> !tile.frag<1x128xf32, #tile.reduced<{{.*}}>>
// CHECK: tile.relayout %[[S]] : !tile.frag<1x128xf32, #tile.reduced<{{.*}}>> -> !tile.frag<1x128xf32, #[[D:tile.blocked<vec = \[1, 4\], lanes = \[1, 32\], warps = \[1, 4\]>]]>
// CHECK: tile.parallel {{.*}} -> !tile.frag<1x128xf32, #[[D]]>
tile.kernel @no_hint(%x: memref<?x128xf32>, %y: memref<1x128xf32>, %out: memref<1x128xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x128xf32> -> !tile.frag<16x128xf32>
    %s = tile.reduce sum %t {dim = 0 : i64, group = 16 : i64} : !tile.frag<16x128xf32> -> !tile.frag<1x128xf32>
    %r = tile.relayout %s : !tile.frag<1x128xf32> -> !tile.frag<1x128xf32>
    %u = tile.load %y[%c0, %c0] : memref<1x128xf32> -> !tile.frag<1x128xf32>
    %p = tile.parallel %r, %u : (!tile.frag<1x128xf32>, !tile.frag<1x128xf32>) -> !tile.frag<1x128xf32> {
    ^bb0(%a: f32, %c: f32):
      %m = arith.mulf %a, %c : f32
      tile.yield %m : f32
    }
    tile.store %p, %out[%c0, %c0] : !tile.frag<1x128xf32>, memref<1x128xf32>
  }
  tile.return
}
