// RUN: tk-opt %s -tile-device-math | FileCheck %s

// math.exp on f32 becomes CUDA's accurate expf per lane: the saturated
// range reduction, fma.rm, the exponent bits shifted into place,
// ex2.approx.ftz and one multiply; math.fma one llvm.intr.fma.
// CHECK-LABEL: func.func @exp
// CHECK-COUNT-2: llvm.nvvm.fma.rm.f
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @fma
// CHECK: llvm.intr.fma
// CHECK-NOT: math.fma
func.func @exp(%x: vector<2xf32>) -> vector<2xf32> {
  %e = math.exp %x : vector<2xf32>
  return %e : vector<2xf32>
}
func.func @fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %r = math.fma %a, %b, %c : f32
  return %r : f32
}

