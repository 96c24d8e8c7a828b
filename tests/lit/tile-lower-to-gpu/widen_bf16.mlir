// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// bf16 -> f32 widens a word (two values) at a time: each half moves into the
// upper half of a zeroed word with one byte permute, selectors 0x1044 (low
// half) and 0x3244 (high half), where a conversion per element costs ptxas
// two instructions for the high half.
// CHECK-LABEL: gpu.func @widen
// CHECK-DAG: %[[HI:.*]] = arith.constant 12868 : i32
// CHECK-DAG: %[[LO:.*]] = arith.constant 4164 : i32
// CHECK: vector.bitcast {{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK: nvvm.prmt <default> %[[LO]], %[[W:.*]], %{{.*}} : i32
// CHECK: nvvm.prmt <default> %[[HI]], %[[W]], %{{.*}} : i32
// CHECK-NOT: arith.extf
// CHECK: gpu.return
//
// A value whose absolute value is taken next (an absmax) keeps the
// per-element extension: LLVM would fold |x| of a float bitcast from an
// integer into an integer mask, which ptxas does not fold into the max.
// CHECK-LABEL: gpu.func @absmax
// CHECK-NOT: nvvm.prmt
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK-NOT: nvvm.prmt
// CHECK: gpu.return
tile.kernel @widen(%x: memref<?x256xbf16>, %y: memref<?x256xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b) in (%m) {
    %h = tile.load %x[%b, %c0] : memref<?x256xbf16> -> !tile.frag<1x256xbf16>
    %f = tile.convert %h : !tile.frag<1x256xbf16> -> !tile.frag<1x256xf32>
    %d = tile.parallel %f : (!tile.frag<1x256xf32>) -> !tile.frag<1x256xf32> {
    ^bb0(%v: f32):
      %two = arith.addf %v, %v : f32
      tile.yield %two : f32
    }
    tile.store %d, %y[%b, %c0] : !tile.frag<1x256xf32>, memref<?x256xf32>
  }
  tile.return
}

tile.kernel @absmax(%x: memref<?x256xbf16>, %y: memref<?x1xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b) in (%m) {
    %h = tile.load %x[%b, %c0] : memref<?x256xbf16> -> !tile.frag<1x256xbf16>
    %f = tile.convert %h : !tile.frag<1x256xbf16> -> !tile.frag<1x256xf32>
    %a = tile.reduce absmax %f {dim = 1 : i64, group = 256 : i64} : !tile.frag<1x256xf32> -> !tile.frag<1x1xf32>
    tile.store %a, %y[%b, %c0] : !tile.frag<1x1xf32>, memref<?x1xf32>
  }
  tile.return
}
