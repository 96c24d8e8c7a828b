// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// FP4 packing halves the per-thread vector along the last dimension: a thread
// holding 8 f32 (of 8 bf16 loaded) writes 4 bytes, element 2i in the low nibble.
// LAYOUT: tile.load {{.*}} -> !tile.frag<4x1024xbf16, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// LAYOUT: tile.pack_e2m1 {{.*}} -> !tile.frag<4x512xi8, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>>
// CHECK-LABEL: gpu.func @fp4
// CHECK: arith.minui
// CHECK: arith.addf
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf olt
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6
// CHECK: vector.shuffle {{.*}} [1, 3, 5, 7
// CHECK: arith.trunci {{.*}} to vector<{{[0-9]+}}xi8>
// CHECK: vector.store {{.*}} : memref<?x512xi8>, vector<4xi8>
// CPU-LABEL: func.func @fp4
// CPU: arith.minui
// CPU: arith.cmpf oge
// CPU: arith.cmpf olt
// CPU: arith.trunci {{.*}} : i32 to i8
tile.kernel @fp4(%x: memref<?x1024xbf16>, %y: memref<?x512xi8>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x1024xbf16> -> !tile.frag<4x1024xbf16>
    %f = tile.convert %t : !tile.frag<4x1024xbf16> -> !tile.frag<4x1024xf32>
    %q = tile.pack_e2m1 %f : !tile.frag<4x1024xf32> -> !tile.frag<4x512xi8>
    tile.store %q, %y[%c0, %c0] : !tile.frag<4x512xi8>, memref<?x512xi8>
  }
  tile.return
}
