// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=IEEE
// RUN: tk-opt %s "-tile-to-ptx=target=sm_90a division=checked" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s

// The default: one div.rn.f32 per element (ptxas gives each a slow-path
// branch). 8 elements per thread here.
// IEEE-COUNT-8: div.rn.f32
// IEEE-NOT: rcp.approx
// TK_DIVISION=checked: div.rn.f32's fast sequence on every element (the
// reciprocal, then fmas: refine it, the quotient, the remainder, the
// corrected quotient), one range check for the thread's 8 values, and
// div.rn.f32 only after it, in the cold loop whose trip count is opaque to
// LLVM (which unrolls it by 4 with a remainder: 5 divisions, not 8 in line).
// CHECK: rcp.approx.ftz.f32 [[R:%r[0-9]+]], [[D:%r[0-9]+]];
// CHECK: fma.rn.f32 [[E:%r[0-9]+]], {{%r[0-9]+}}, [[R]], 0f3F800000;
// CHECK: fma.rn.f32 [[R1:%r[0-9]+]], [[R]], [[E]], [[R]];
// CHECK: fma.rn.f32 [[Q0:%r[0-9]+]], {{%r[0-9]+}}, [[R1]], 0f00000000;
// CHECK: fma.rn.f32 [[REM:%r[0-9]+]], {{%r[0-9]+}}, [[Q0]], {{%r[0-9]+}};
// CHECK: fma.rn.f32 {{%r[0-9]+}}, [[R1]], [[REM]], [[Q0]];
// CHECK-NOT: div.rn.f32
// CHECK: mov.u32 {{%r[0-9]+}}, 8;
// CHECK: div.rn.f32
tile.kernel @silu(%x: memref<?x256xf32> {tile.align = 16 : i64}, %out: memref<?x256xf32> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
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
      tile.yield %s : f32
    }
    tile.store %y, %out[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
