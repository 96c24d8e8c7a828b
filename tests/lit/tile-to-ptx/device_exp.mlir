// RUN: tk-opt %s -tile-to-ptx='target=sm_90a ablate=logistic-division' | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx='target=sm_80 ablate=logistic-division' | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=NOCALL

// math.exp is CUDA's accurate expf, in the order nvcc emits it (tile-device-math):
// range reduction with fma.rn and a round-down fma.rm, two fmas for the reduced
// argument, 2^n from the exponent bits, ex2.approx.ftz, one multiply. No
// libdevice call, no single-instruction fast exp. math.fma is one fma.rn. (With
// the logistic-division ablation the SiLU division is div.rn; with it on, see
// logistic_division.mlir.)
// NOCALL-NOT: {{call|div.full|div.approx|ex2.approx.f32}}
// (exp(-l): LLVM moves the negation of l into the constants, which is exact.)
// CHECK: fma.rn.f32 [[R:%[rf][0-9]+]], [[L:%[rf][0-9]+]], 0fBBBB989D, 0f3F000000
// CHECK: max.f32 [[M:%[rf][0-9]+]], [[R]], 0f00000000
// CHECK: min.f32 [[T:%[rf][0-9]+]], [[M]], 0f3F800000
// CHECK: fma.rm.f32 [[K:%[rf][0-9]+]], [[T]],
// CHECK: add.rn.f32 [[N:%[rf][0-9]+]], [[K]], 0fCB40007F
// CHECK: neg.f32 [[NN:%[rf][0-9]+]], [[N]]
// CHECK: fma.rn.f32 [[F:%[rf][0-9]+]], [[L]], 0fBFB8AA3B, [[NN]]
// CHECK: fma.rn.f32 [[G:%[rf][0-9]+]], [[L]], 0fB2A57060, [[F]]
// CHECK: shl.b32 [[S:%r[0-9]+]], [[K]], 23
// CHECK: ex2.approx.ftz.f32 [[P:%[rf][0-9]+]], [[G]]
// CHECK: mul.rn.f32 {{%[rf][0-9]+}}, [[P]], [[S]]
// CHECK: div.rn.f32
// CHECK: fma.rn.f32 {{%[rf][0-9]+}}, {{%[rf][0-9]+}}, {{%[rf][0-9]+}}, 0f3F800000
tile.kernel @silu(%x: memref<?x256xf32> {tile.align = 16 : i64}, %out: memref<?x256xf32> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %y = tile.parallel %t : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%l: f32):
      %one = arith.constant 1.0 : f32
      %nl = arith.negf %l : f32
      %e = math.exp %nl : f32
      %d = arith.addf %e, %one : f32
      %s = arith.divf %l, %d : f32
      %f = math.fma %s, %l, %one : f32
      tile.yield %f : f32
    }
    tile.store %y, %out[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
