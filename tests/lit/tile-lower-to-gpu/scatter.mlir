// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.scatter: a row's total (a [1, 1] reduction of a [1, 256] row) written
// to grad[idx[row]], as SwiGLU backward writes its weight gradient. Thread 0
// (lane 0 of warp 0) writes, and only for an index inside the tensor.
// CHECK-LABEL: gpu.func @rowsum
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi eq
// CHECK: arith.andi
// CHECK: scf.if
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CPU-LABEL: func.func @rowsum
// CPU: arith.cmpi sge
// CPU: scf.if
// CPU: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// PTX: st.global.b32
tile.kernel @rowsum(%x: memref<?x256xf32>, %idx: memref<?x1xi32>, %grad: memref<?xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%r) in (%m) {
    %t = tile.load %x[%r, %c0] : memref<?x256xf32> -> !tile.frag<1x256xf32>
    %s = tile.reduce sum %t {dim = 1 : i64, group = 256 : i64} : !tile.frag<1x256xf32> -> !tile.frag<1x1xf32>
    %i = tile.load %idx[%r, %c0] : memref<?x1xi32> -> !tile.frag<1x1xi32>
    tile.scatter %s, %grad[%i] : !tile.frag<1x1xf32>, memref<?xf32>, !tile.frag<1x1xi32>
  }
  tile.return
}
