// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.scatter of a reduction's result (each row's maximum, held by every
// thread that reduced the row) to positions made of coordinates alone: the
// index is made again in the reduction's layout (no conflict, no relayout),
// and one thread of each row's group writes it, the one at in-group
// position zero, as top2_sum_gate writes a row's chosen experts to a table.
// LAYOUT-LABEL: tile.kernel @row_max_table
// LAYOUT: %[[M:.*]] = tile.reduce max {{.*}} -> !tile.frag<4x1xf32, [[R:#tile.reduced<.*>]]>
// LAYOUT: tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32, [[R]]>
// LAYOUT: %[[I:.*]] = tile.parallel {{.*}} -> !tile.frag<4x1xi32, [[R]]>
// LAYOUT: tile.scatter %[[M]], %{{.*}}[%[[I]]] : !tile.frag<4x1xf32, [[R]]>
// CHECK-LABEL: gpu.func @row_max_table
// CHECK: gpu.shuffle xor
// CHECK: arith.remui
// CHECK: %[[LEAD:.*]] = arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// PTX: .entry row_max_table
// PTX-NOT: bar.sync
// PTX: st.global.b32
tile.kernel @row_max_table(%x: memref<?x32xf32>, %out: memref<?xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %i = tile.iota {dim = 0 : i64} : !tile.frag<4x1xi32>
    %at = tile.parallel %i : (!tile.frag<4x1xi32>) -> !tile.frag<4x1xi32> {
    ^bb0(%v: i32):
      %c2 = arith.constant 2 : i32
      %w = arith.muli %v, %c2 : i32
      tile.yield %w : i32
    }
    %t = tile.load %x[%c0, %c0] : memref<?x32xf32> -> !tile.frag<4x32xf32>
    %m = tile.reduce max %t {dim = 1 : i64, group = 32 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x1xf32>
    tile.scatter %m, %out[%at] : !tile.frag<4x1xf32>, memref<?xf32>, !tile.frag<4x1xi32>
  }
  tile.return
}
