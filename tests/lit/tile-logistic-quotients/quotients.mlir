// RUN: tk-opt %s -tile-logistic-quotients | FileCheck %s --check-prefix=IEEE
// RUN: tk-opt %s -tile-logistic-quotients=multiply-and-correct=true | FileCheck %s --check-prefix=MAC
// RUN: tk-opt %s -tile-logistic-quotients='multiply-and-correct=true guard-values=2' | FileCheck %s --check-prefix=GUARD2

// Without the multiply-and-correct option every quotient is 1 + exp(-x)
// (one per x, shared by a silu and a sigmoid of it) and an arith.divf.
// IEEE-LABEL: func.func @shared
// IEEE: arith.constant dense<1.000000e+00>
// IEEE-NEXT: %[[N:.*]] = arith.negf %arg0 : vector<4xf32>
// IEEE-NEXT: %[[E:.*]] = math.exp %[[N]] : vector<4xf32>
// IEEE-NEXT: %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : vector<4xf32>
// IEEE-NEXT: arith.divf %arg0, %[[D]] : vector<4xf32>
// IEEE-NOT: math.exp
// IEEE: arith.divf %{{.*}}, %[[D]] : vector<4xf32>
// IEEE-LABEL: func.func @lone
// IEEE-NOT: tile.

// With it, a silu and a sigmoid of one x take the branch-free sequence
// (rcp.approx per lane, the 2^64 scaling and the non-finite select), a lone
// silu the short one under one range check (an scf.if) for all its lanes,
// and a quotient of form ieee_div stays arith.divf.
// MAC-LABEL: func.func @shared
// MAC-NOT: scf.if
// MAC-COUNT-8: llvm.nvvm.rcp.approx.ftz.f
// MAC-NOT: arith.divf
// MAC-LABEL: func.func @lone
// MAC: arith.cmpf ole
// MAC: scf.if
// MAC-COUNT-4: llvm.nvvm.rcp.approx.ftz.f
// MAC: } else {
// MAC-COUNT-4: arith.divf
// MAC-LABEL: func.func @ieee
// MAC-NOT: rcp.approx
// MAC: arith.divf
// MAC-NOT: rcp.approx
// GUARD2-LABEL: func.func @lone
// GUARD2-COUNT-2: scf.if
func.func @shared(%x: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %a = tile.silu %x : vector<4xf32>
  %b = tile.sigmoid %x : vector<4xf32>
  return %a, %b : vector<4xf32>, vector<4xf32>
}
func.func @lone(%x: vector<4xf32>) -> vector<4xf32> {
  %a = tile.silu %x : vector<4xf32>
  return %a : vector<4xf32>
}
func.func @ieee(%x: f32) -> f32 {
  %a = tile.silu %x form ieee_div : f32
  return %a : f32
}
