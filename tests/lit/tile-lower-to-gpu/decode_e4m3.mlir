// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s --check-prefix=HW
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=fp8-hardware=false -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// With the sm_89+ conversion (the default) codes widen in pairs: e4m3x2 ->
// f16x2 (exact), then f16 -> f32.
// HW-LABEL: gpu.func @decode
// HW: vector.load {{.*}} : memref<?x512xi8>, vector<8xi8>
// HW: nvvm.convert.f8x2.to.f16x2 {{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// HW: arith.extf {{.*}} : vector<2xf16> to vector<2xf32>
// HW-NOT: arith.uitofp
// HW: nvvm.convert.f32x2.to.bf16x2
// HW: vector.store {{.*}} : memref<?x512xbf16>, vector<8xbf16>
// Without it (sm_80), e4m3 codes widen to f32 by integer arithmetic on the
// whole per-thread vector: normal codes shift into place and rebias, subnormal
// ones are m * 2^-9, 0x7F is NaN; the sign bit moves to bit 31. Chunks follow
// the widest element of the main data (the bf16 stores, 16 bytes), so a thread
// loads 8 codes at a time (two chunks per thread here) and stores 8 bf16.
// CHECK-LABEL: gpu.func @decode
// CHECK: vector.load {{.*}} : memref<?x512xi8>, vector<8xi8>
// CHECK: vector.load {{.*}} : memref<?x512xi8>, vector<8xi8>
// CHECK: arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: arith.uitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: arith.select
// CHECK: arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// f32 -> bf16 rounds pairs with one cvt.rn.bf16x2.f32 each (sm_80+), not
// one conversion per element.
// CHECK-COUNT-8: nvvm.convert.f32x2.to.bf16x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xbf16>
// CHECK-NOT: arith.truncf
// CHECK: vector.store {{.*}} : memref<?x512xbf16>, vector<8xbf16>
// CPU-LABEL: func.func @decode
// CPU: arith.extui {{.*}} : i8 to i32
// CPU: arith.uitofp {{.*}} : i32 to f32
tile.kernel @decode(%x: memref<?x512xf8E4M3FN>, %y: memref<?x512xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x512xf8E4M3FN>
  tile.grid (%b) in (%m) {
    %q = tile.load %x[%b, %c0] : memref<?x512xf8E4M3FN> -> !tile.frag<1x512xf8E4M3FN>
    %f = tile.convert %q : !tile.frag<1x512xf8E4M3FN> -> !tile.frag<1x512xf32>
    %h = tile.convert %f : !tile.frag<1x512xf32> -> !tile.frag<1x512xbf16>
    tile.store %h, %y[%b, %c0] : !tile.frag<1x512xbf16>, memref<?x512xbf16>
  }
  tile.return
}
