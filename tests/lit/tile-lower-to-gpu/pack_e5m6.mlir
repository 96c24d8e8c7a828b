// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts "-tile-lower-to-gpu=fp8-hardware=false" -canonicalize | FileCheck %s --check-prefix=SOFT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// E5M6 packs 8 codes into 12 bytes, so each thread needs runs of 8. A
// kernel that writes E5M6 takes runs of 16 (two per thread chunk): 24 bytes
// out per thread, stored as three 8-byte words, where runs of 8 stored three
// 4-byte words that each covered a third of every sector (on the H200 the
// e5m6 cast 240.8 -> 212.5 µs). Reading kernels keep 8 (unpack_e5m6.mlir).
// LAYOUT: tile.load {{.*}} -> !tile.frag<1x1024xf32, #tile.blocked<vec = [1, 16], lanes = [1, 32], warps = [1, 4]>>
// LAYOUT: tile.pack_e5m6 {{.*}} -> !tile.frag<1x1536xi8, #tile.blocked<vec = [1, 24], lanes = [1, 32], warps = [1, 4]>>
// CHECK-LABEL: gpu.func @e5m6
// Step 1 of the encode (fp16 bits rounded toward zero) is cvt.rz.f16x2.f32
// on pairs where the target has it, each pair's halves then taken from one
// 32-bit word; integer arithmetic otherwise. Both round with an add reaching
// bit 31 (0x7FFEFFFF).
// CHECK: arith.constant dense<2147418111> : vector<8xi32>
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f16x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rz>} : vector<2xf16>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xi32>, vector<16xi32>
// SOFT-LABEL: gpu.func @e5m6
// SOFT-NOT: nvvm.convert
// SOFT: arith.constant dense<2147418111> : vector<16xi32>
// SOFT: vector.store {{.*}} : memref<?x1536xi8>, vector<24xi8>
// The three words of each 8 codes become the bytes by a bitcast: 24 for the
// thread's 16 codes.
// CHECK: vector.from_elements {{.*}} : vector<6xi32>
// CHECK: vector.bitcast {{.*}} : vector<6xi32> to vector<24xi8>
// CHECK: vector.store {{.*}} : memref<?x1536xi8>, vector<24xi8>
// CPU-LABEL: func.func @e5m6
// CPU: arith.trunci {{.*}} : i32 to i8
tile.kernel @e5m6(%x: memref<?x1024xf32>, %y: memref<?x1536xi8>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x1024xf32> -> !tile.frag<1x1024xf32>
    %q = tile.pack_e5m6 %t : !tile.frag<1x1024xf32> -> !tile.frag<1x1536xi8>
    tile.store %q, %y[%c0, %c0] : !tile.frag<1x1536xi8>, memref<?x1536xi8>
  }
  tile.return
}
