// RUN: tk-opt %s -tile-assign-layouts -split-input-file -verify-diagnostics | FileCheck %s

// An author's layout on a load propagates through elementwise ops.
// CHECK: tile.parallel {{.*}} -> !tile.frag<8x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>
    %p = tile.parallel %t : (!tile.frag<8x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>) -> !tile.frag<8x64xf32> {
    ^bb0(%v: f32):
      tile.yield %v : f32
    }
    tile.store %p, %x[%c0, %c0] : !tile.frag<8x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// -----

// Two annotated operands that disagree: the diagnostic names both layouts.
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>
    // expected-note @+1 {{operand defined here by tile.load}}
    %u = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32, #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [4, 1]>>
    // expected-error @+1 {{layout conflict: operand has layout #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [4, 1]> but the result has layout #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>}}
    %p = tile.parallel %t, %u : (!tile.frag<8x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>, !tile.frag<8x64xf32, #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [4, 1]>>) -> !tile.frag<8x64xf32> {
    ^bb0(%v: f32, %w: f32):
      %s = arith.addf %v, %w : f32
      tile.yield %s : f32
    }
  }
  tile.return
}

// -----

// FP4 codes annotated with a layout that does not pair with the values'
// (half their vector): tile.e2m1_to_e4m3 names the codes' layout and the
// one it needs.
tile.kernel @k(%x: memref<?x32xi8>, %s: memref<?x64xi32>, %y: memref<?x64xf8E4M3FN>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    // expected-note @+1 {{operand defined here by tile.load}}
    %codes = tile.load %x[%c0, %c0] : memref<?x32xi8> -> !tile.frag<1x32xi8, #tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [1, 1]>>
    %shift = tile.load %s[%c0, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [1, 1]>>
    // expected-error @+1 {{layout conflict: operand has layout #tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [1, 1]> but the values' layout #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [1, 1]> needs #tile.blocked<vec = [1, 2], lanes = [2, 16], warps = [1, 1]>}}
    %q = tile.e2m1_to_e4m3 %codes, %shift : !tile.frag<1x32xi8, #tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [1, 1]>>, !tile.frag<1x64xi32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [1, 1]>> -> !tile.frag<1x64xf8E4M3FN>
    tile.store %q, %y[%c0, %c0] : !tile.frag<1x64xf8E4M3FN>, memref<?x64xf8E4M3FN>
  }
  tile.return
}
