// RUN: tk-opt %s -split-input-file -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -split-input-file -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=TABLE

// FP4 codes to e4m3 by table lookup. The codes are laid out as the values
// with half the vector (8 bytes for 16 values), the shifts as the values.
// LAYOUT: tile.e2m1_to_e4m3 {{.*}} : !tile.frag<1x64xi8, #tile.blocked<vec = [1, 8], lanes = [4, 8], warps = [1, 1]>>, !tile.frag<1x128xi32, #tile.blocked<vec = [1, 16], lanes = [4, 8], warps = [1, 1]>> -> !tile.frag<1x128xf8E4M3FN, #tile.blocked<vec = [1, 16], lanes = [4, 8], warps = [1, 1]>>
// A shift per block of 32 values: each thread's 16 values share one, so one
// table (8 products, 4 pair encodes) and, per 4 values, one permute for the
// magnitudes and one for the signs.
// CHECK-LABEL: gpu.func @uniform
// CHECK-COUNT-8: nvvm.prmt
// CHECK-NOT: nvvm.prmt
// CHECK-LABEL: gpu.func @per_pair
// TABLE-LABEL: gpu.func @uniform
// TABLE: arith.mulf {{.*}} : vector<8xf32>
// TABLE-NOT: arith.mulf
// TABLE-COUNT-4: nvvm.convert.f32x2.to.f8x2
// TABLE-NOT: nvvm.convert.f32x2.to.f8x2
// TABLE-LABEL: gpu.func @per_pair
tile.kernel @uniform(%x: memref<?x64xi8>, %s: memref<?x4xi32>, %y: memref<?x128xf8E4M3FN>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %codes = tile.load %x[%b, %c0] : memref<?x64xi8> -> !tile.frag<1x64xi8>
    %shift = tile.load %s[%b, %c0] : memref<?x4xi32> -> !tile.frag<1x4xi32>
    %e = tile.expand %shift {dim = 1 : i64, group = 32 : i64} : !tile.frag<1x4xi32> -> !tile.frag<1x128xi32>
    %q = tile.e2m1_to_e4m3 %codes, %e : !tile.frag<1x64xi8>, !tile.frag<1x128xi32> -> !tile.frag<1x128xf8E4M3FN>
    tile.store %q, %y[%b, %c0] : !tile.frag<1x128xf8E4M3FN>, memref<?x128xf8E4M3FN>
  }
  tile.return
}

// -----

// A shift per pair of values: every 4 values have two tables, so each byte
// comes from its own table's permute, masked and combined.
// CHECK: arith.constant -16777216 : i32
// CHECK-COUNT-32: nvvm.convert.f32x2.to.f8x2
// CHECK-NOT: nvvm.convert.f32x2.to.f8x2
tile.kernel @per_pair(%x: memref<?x64xi8>, %s: memref<?x64xi32>, %y: memref<?x128xf8E4M3FN>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %codes = tile.load %x[%b, %c0] : memref<?x64xi8> -> !tile.frag<1x64xi8>
    %shift = tile.load %s[%b, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    %e = tile.expand %shift {dim = 1 : i64, group = 2 : i64} : !tile.frag<1x64xi32> -> !tile.frag<1x128xi32>
    %q = tile.e2m1_to_e4m3 %codes, %e : !tile.frag<1x64xi8>, !tile.frag<1x128xi32> -> !tile.frag<1x128xf8E4M3FN>
    tile.store %q, %y[%b, %c0] : !tile.frag<1x128xf8E4M3FN>, memref<?x128xf8E4M3FN>
  }
  tile.return
}
