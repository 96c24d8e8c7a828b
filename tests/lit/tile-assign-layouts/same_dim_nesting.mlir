// RUN: tk-opt %s -tile-assign-layouts -split-input-file -verify-diagnostics

// A reduction of a reduction along the same dimension is one reduction with
// the product of the groups; the reduced layout cannot express the nesting
// (its verifier forbids it), and lowering such a layout once gave wrong
// answers on the GPU. The pass says so instead.
tile.kernel @same_dim(%x: memref<?x256xf32>, %m: memref<?x8xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %r = tile.reduce max %t {dim = 1 : i64, group = 8 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x32xf32>
    // expected-error @+1 {{reduces dimension 1 of a fragment already reduced along it (group 8): reduce once with group 32 instead}}
    %a = tile.reduce max %r {dim = 1 : i64, group = 4 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x8xf32>
    tile.store %a, %m[%c0, %c0] : !tile.frag<4x8xf32>, memref<?x8xf32>
  }
  tile.return
}

// -----

// The same for expansions: one expansion with the product of the groups.
tile.kernel @same_dim_expand(%s: memref<?x8xf32>, %y: memref<?x256xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %s[%c0, %c0] : memref<?x8xf32> -> !tile.frag<4x8xf32>
    // expected-error @+1 {{expands dimension 1 of a fragment that is itself expanded along it (group 8): expand once with group 32 instead}}
    %e = tile.expand %t {dim = 1 : i64, group = 4 : i64} : !tile.frag<4x8xf32> -> !tile.frag<4x32xf32>
    %f = tile.expand %e {dim = 1 : i64, group = 8 : i64} : !tile.frag<4x32xf32> -> !tile.frag<4x256xf32>
    tile.store %f, %y[%c0, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}
