// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.iota: each element's column. Its layout is its users' (here the f32
// tile it is added to: 4 values per thread along a row); on the GPU each
// slot's column is the layout's static place plus the thread's first column
// (4 consecutive columns: tid % 16 * 4 + 0..3); on the CPU a loop stores
// the induction variable.
// LAYOUT: tile.iota {dim = 1 : i64} : !tile.frag<4x64xi32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [2, 1]>>
// GPU-LABEL: gpu.func @columns
// GPU: arith.index_cast {{.*}} : index to i32
// GPU: vector.from_elements {{.*}} : vector<4xi32>
// GPU-NOT: tile.
// CPU-LABEL: func.func @columns
// CPU: scf.for %[[R:.*]] =
// CPU: scf.for %[[C:.*]] =
// CPU: arith.index_cast %[[C]] : index to i32
// CPU-NOT: tile.
// PTX: .entry columns
tile.kernel @columns(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    %c = tile.iota {dim = 1 : i64} : !tile.frag<4x64xi32>
    %s = tile.parallel %t, %c : (!tile.frag<4x64xf32>, !tile.frag<4x64xi32>) -> !tile.frag<4x64xf32> {
    ^bb0(%v: f32, %i: i32):
      %f = arith.sitofp %i : i32 to f32
      %r = arith.addf %v, %f : f32
      tile.yield %r : f32
    }
    tile.store %s, %y[%c0, %c0] : !tile.frag<4x64xf32>, memref<?x64xf32>
  }
  tile.return
}
