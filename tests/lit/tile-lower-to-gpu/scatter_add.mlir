// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.scatter {add} of a [64, 8] tile: a histogram of expert ids (MoE's
// group_count). Every element is added by the thread holding it with an
// integer atomic, guarded against negative ids (padding) and ids past the
// end; the [64, 8] tile on 128 threads has no padding, so no in-tile check.
// CHECK-LABEL: gpu.func @histogram
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: scf.if
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<?xi32>) -> i32
// CPU-LABEL: func.func @histogram
// CPU: scf.for
// CPU: scf.if
// CPU: memref.atomic_rmw addi
// PTX: atom.global.add.u32
tile.kernel @histogram(%ids: memref<?x8xi32>, %ones: memref<?x8xi32>, %counts: memref<?xi32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %ids, %c0 : memref<?x8xi32>
  %n = arith.ceildivui %m, %c64 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c64 : index
    %i = tile.load %ids[%r, %c0] : memref<?x8xi32> -> !tile.frag<64x8xi32>
    %one = tile.load %ones[%r, %c0] : memref<?x8xi32> -> !tile.frag<64x8xi32>
    tile.scatter %one, %counts[%i] {add} : !tile.frag<64x8xi32>, memref<?xi32>, !tile.frag<64x8xi32>
  }
  tile.return
}

// An elementwise scatter into a bf16 table: the index takes the value's
// layout, whose padding (a [4, 2] tile on 32 threads) holds nothing.
// CHECK-LABEL: gpu.func @inverse
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: arith.cmpi sge
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xbf16>
tile.kernel @inverse(%v: memref<?x2xbf16>, %pos: memref<?x2xi32>, %out: memref<?xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %v[%c0, %c0] : memref<?x2xbf16> -> !tile.frag<4x2xbf16>
    %p = tile.load %pos[%c0, %c0] : memref<?x2xi32> -> !tile.frag<4x2xi32>
    tile.scatter %t, %out[%p] : !tile.frag<4x2xbf16>, memref<?xbf16>, !tile.frag<4x2xi32>
  }
  tile.return
}
