// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// Unpacking FP4 doubles the per-thread vector: a backward hint gives the byte
// tile half the vector of the values' layout, so that scale factors expanded
// to the values' layout meet them without a conflict.
// LAYOUT: tile.load %arg0{{.*}} -> !tile.frag<1x512xi8, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>>
// LAYOUT: tile.unpack_e2m1 {{.*}} -> !tile.frag<1x1024xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// Each nibble's bits go to the bottom of an f32 exponent (sign to bit 31);
// one multiplication by 2^126 finishes the decode.
// CHECK-LABEL: gpu.func @fp4
// CHECK: %[[TWO126:.*]] = arith.constant dense<8.50705917E+37> : vector<4xf32>
// CHECK: vector.load {{.*}} : memref<?x512xi8>, vector<4xi8>
// CHECK: arith.mulf %{{.*}}, %[[TWO126]] : vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %[[TWO126]] : vector<4xf32>
// CHECK: vector.interleave {{.*}} : vector<4xf32> -> vector<8xf32>
// CPU-LABEL: func.func @fp4
// CPU: arith.remui
tile.kernel @fp4(%x: memref<?x512xi8>, %s: memref<?x8xf32>, %y: memref<?x1024xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %q = tile.load %x[%c0, %c0] : memref<?x512xi8> -> !tile.frag<1x512xi8>
    %v = tile.unpack_e2m1 %q : !tile.frag<1x512xi8> -> !tile.frag<1x1024xf32>
    %sf = tile.load %s[%c0, %c0] : memref<?x8xf32> -> !tile.frag<1x8xf32>
    %e = tile.expand %sf {dim = 1 : i64, group = 128 : i64} : !tile.frag<1x8xf32> -> !tile.frag<1x1024xf32>
    %p = tile.parallel %v, %e : (!tile.frag<1x1024xf32>, !tile.frag<1x1024xf32>) -> !tile.frag<1x1024xf32> {
    ^bb0(%a: f32, %c: f32):
      %m = arith.mulf %a, %c : f32
      tile.yield %m : f32
    }
    %h = tile.convert %p : !tile.frag<1x1024xf32> -> !tile.frag<1x1024xbf16>
    tile.store %h, %y[%c0, %c0] : !tile.frag<1x1024xbf16>, memref<?x1024xbf16>
  }
  tile.return
}
