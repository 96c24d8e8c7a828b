// RUN: tk-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics

// A store's mask must be laid out as its value: a mask computed from a
// reduction's result (each row's value held by the threads that reduced it)
// cannot mask a tile loaded in the default layout; the conflict names both.
tile.kernel @mix(%x: memref<?x64xf32> {tile.align = 16 : i64}, %y: memref<?x1xf32>, %out: memref<?x1xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %rows = memref.dim %x, %c0 : memref<?x64xf32>
  %n = arith.ceildivui %rows, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xf32> -> !tile.frag<32x64xf32>
    %v = tile.load %y[%r, %c0] : memref<?x1xf32> -> !tile.frag<32x1xf32>
    %mx = tile.reduce max %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x64xf32> -> !tile.frag<32x1xf32>
    // expected-note @+1 {{operand defined here by tile.parallel}}
    %pos = tile.parallel %mx : (!tile.frag<32x1xf32>) -> !tile.frag<32x1xi8> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %gt = arith.cmpf ogt, %e, %z : f32
      %i = arith.extui %gt : i1 to i8
      tile.yield %i : i8
    }
    // expected-error @+1 {{layout conflict: operand has layout #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [2, 1]>, dim = 1, group = 64> but the value it places has layout #tile.blocked<vec = [1, 1], lanes = [32, 1], warps = [1, 2]>}}
    tile.store %v, %out[%r, %c0] mask %pos : !tile.frag<32x1xf32>, memref<?x1xf32>, !tile.frag<32x1xi8>
  }
  tile.return
}
