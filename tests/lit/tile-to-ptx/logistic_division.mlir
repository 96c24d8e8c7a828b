// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --implicit-check-not=copysign
// RUN: tk-opt %s -tile-to-ptx=target=sm_100a | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=NORCP
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=NORCP
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=GUARD
// RUN: tk-opt %s -tile-to-ptx='target=sm_90a logistic-guard=4' | sed -e 's/\\0A/\n/g' | grep -c 'bra.uni' | FileCheck %s --check-prefix=GUARD4
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | grep -c 'div.rn.f32' | FileCheck %s --check-prefix=DIV
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | grep -c 'rcp.approx.ftz.f32' | FileCheck %s --check-prefix=RCP
// RUN: tk-opt %s -tile-to-ptx='target=sm_90a ablate=logistic-division' | sed -e 's/\\0A/\n/g' | grep -c -E 'div.rn.f32|rcp.rn.f32' | FileCheck %s --check-prefix=IEEE
// RUN: tk-opt %s -tile-to-ptx='target=sm_90a ablate=logistic-division' | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=NORCP
// RUN: sed 's/tile.silu %l2x : f32/tile.silu %l2x form ieee_div : f32/' %s | tk-opt -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | grep -c 'div.rn.f32' | FileCheck %s --check-prefix=LONEDIV
// RUN: sed 's/tile.silu %l2x : f32/tile.silu %l2x form ieee_div : f32/' %s | tk-opt -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | grep -c 'rcp.approx.ftz.f32' | FileCheck %s --check-prefix=LONERCP
// RUN: sed 's/tile.silu %l2x : f32/tile.silu %l2x form ieee_div : f32/' %s | tk-opt -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=LONE
// RUN: not tk-opt %s -tile-to-ptx='target=sm_90a ablate=no-such-pass' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// tile.silu (x / (1 + exp(-x))) and tile.sigmoid (1 / (1 + exp(-x))) of the
// same x become, on sm_90a only (where the exhaustive GPU check ran; sm_100a
// and sm_80 keep IEEE division, as does the pass ablated), a branch-free
// multiply-and-correct sequence (tile-logistic-quotients): d scaled by 2^-64 from 2^64 on,
// rcp.approx.ftz, one Newton step, the product, the residual (negated, so
// that -0 keeps its sign: no copysign) and its correction, and the quotient
// of the scaled pair where that is NaN. The two share d's reciprocal (16 per thread: 4 x 256 values over 64
// threads). A SiLU alone (of 2x here) takes the sequence without its
// scaling and non-finite cases under one check per thread that every
// |2x| <= 80 (16 compares and-ed, one branch), and div.rn.f32 for all 16
// values otherwise: 16 more rcp.approx, 16 div.rn.f32 in the other branch
// (with logistic-guard=4, TK_LOGISTIC_GUARD: a check and a branch per 4).
// Any other division (here x / (2 + exp(-x)), written out) stays
// div.rn.f32: 32 in all. A silu of form ieee_div (DSL QuotientForm::IeeeDiv)
// stays div.rn.f32 with no guard (32 in all, as many as the guarded form has
// in its other branch) and only the shared divisor takes rcp.approx (16).
// With the pass ablated all 64 are IEEE (div.rn.f32, and rcp.rn.f32 for 1 / d).
// CHECK-LABEL: .entry logistic
// CHECK: setp.ge.f32 [[BIG:%p[0-9]+]], [[D:%[rf][0-9]+]], 0f5F800000
// CHECK-NEXT: selp.f32 [[S:%[rf][0-9]+]], 0f1F800000, 0f3F800000, [[BIG]]
// CHECK-NEXT: mul.rn.f32 [[DS:%[rf][0-9]+]], [[D]], [[S]]
// CHECK-NEXT: rcp.approx.ftz.f32 [[Y0:%[rf][0-9]+]], [[DS]]
// CHECK-NEXT: neg.f32 [[NDS:%[rf][0-9]+]], [[DS]]
// CHECK-NEXT: fma.rn.f32 [[E:%[rf][0-9]+]], [[NDS]], [[Y0]], 0f3F800000
// CHECK-NEXT: fma.rn.f32 [[Y:%[rf][0-9]+]], [[Y0]], [[E]], [[Y0]]
// CHECK: mul.rn.f32 [[NS:%[rf][0-9]+]], {{%[rf][0-9]+}}, [[S]]
// CHECK-NEXT: mul.rn.f32 [[Q0:%[rf][0-9]+]], [[NS]], [[Y]]
// CHECK-NEXT: neg.f32 [[NNS:%[rf][0-9]+]], [[NS]]
// CHECK-NEXT: fma.rn.f32 [[NR:%[rf][0-9]+]], [[DS]], [[Q0]], [[NNS]]
// CHECK-NEXT: neg.f32 [[R:%[rf][0-9]+]], [[NR]]
// CHECK-NEXT: fma.rn.f32 [[Q:%[rf][0-9]+]], [[R]], [[Y]], [[Q0]]
// CHECK-NEXT: setp.nan.f32 [[NAN:%p[0-9]+]], [[Q]], [[Q]]
// CHECK-NEXT: mul.rn.f32 [[QS:%[rf][0-9]+]], [[Y0]], [[NS]]
// CHECK-NEXT: selp.f32 {{%[rf][0-9]+}}, [[QS]], [[Q]], [[NAN]]
// GUARD-COUNT-16: setp.{{le|gtu}}.f32 {{%p[0-9]+}}, {{%[rf][0-9]+}}, 0f42A00000
// GUARD: @{{%p[0-9]+}} bra
// GUARD-COUNT-16: rcp.approx.ftz.f32
// GUARD: bra.uni
// GUARD-COUNT-16: div.rn.f32
// GUARD4: {{^}}4{{$}}
// DIV: {{^}}32{{$}}
// RCP: {{^}}32{{$}}
// IEEE: {{^}}64{{$}}
// LONEDIV: {{^}}32{{$}}
// LONERCP: {{^}}16{{$}}
// LONE-LABEL: .entry logistic
// LONE-NOT: 0f42A00000
// NORCP-NOT: rcp.approx
// UNKNOWN: unknown pass 'no-such-pass'
tile.kernel @logistic(%x: memref<?x256xf32> {tile.align = 16 : i64}, %silu: memref<?x256xf32> {tile.align = 16 : i64},
                      %sig: memref<?x256xf32> {tile.align = 16 : i64}, %other: memref<?x256xf32> {tile.align = 16 : i64},
                      %alone: memref<?x256xf32> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %a = tile.parallel %t : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%l: f32):
      %s = tile.silu %l : f32
      tile.yield %s : f32
    }
    tile.store %a, %silu[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
    %b = tile.parallel %t : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%l: f32):
      %s = tile.sigmoid %l : f32
      tile.yield %s : f32
    }
    tile.store %b, %sig[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
    %c = tile.parallel %t : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%l: f32):
      %two = arith.constant 2.0 : f32
      %nl = arith.negf %l : f32
      %e = math.exp %nl : f32
      %d = arith.addf %two, %e : f32
      %s = arith.divf %l, %d : f32
      tile.yield %s : f32
    }
    tile.store %c, %other[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
    %l2 = tile.parallel %t : (!tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
    ^bb0(%l: f32):
      %two = arith.constant 2.0 : f32
      %l2x = arith.mulf %l, %two : f32
      %s = tile.silu %l2x : f32
      tile.yield %s : f32
    }
    tile.store %l2, %alone[%r, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
