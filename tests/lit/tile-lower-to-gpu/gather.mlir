// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.gather: per-row routing weights w[p] = weights[idx[p]], zero for a
// negative index (MoE padding) or one past the end. The result takes the
// index's layout (assign-layouts), and every element a thread holds is one
// load guarded by the range check, on the GPU as on the CPU.
// CHECK-LABEL: gpu.func @k
// CHECK: memref.dim %{{.*}} : memref<?xf32>
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: memref.load %{{.*}} : memref<?xf32>
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f32
// CPU-LABEL: func.func @k
// CPU: scf.if %{{.*}} -> (f32)
// CPU: memref.load %{{.*}} : memref<?xf32>
// The guarded load: a branch around it when the index is out of range.
// PTX: setp.lt.s32{{.*}}@%p{{[0-9]+}} bra{{.*}}ld.global.b32
tile.kernel @k(%idx: memref<?x1xi32>, %w: memref<?xf32>, %out: memref<?x1xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %idx, %c0 : memref<?x1xi32>
  %n = arith.ceildivui %m, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %i = tile.load %idx[%r, %c0] : memref<?x1xi32> -> !tile.frag<32x1xi32>
    %v = tile.gather %w[%i] : memref<?xf32>, !tile.frag<32x1xi32> -> !tile.frag<32x1xf32>
    tile.store %v, %out[%r, %c0] : !tile.frag<32x1xf32>, memref<?x1xf32>
  }
  tile.return
}
