// RUN: tk-opt %s -tile-lower-to-gpu -split-input-file -verify-diagnostics

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    // expected-error @+1 {{needs a blocked layout on '!tile.frag<4x64xf32>' (run tile-assign-layouts first)}}
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x96xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x96xf32> -> !tile.frag<1x96xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>>
    // expected-error @+1 {{cannot reduce with layout #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>: group 48 does not divide the layout's coverage of 512 elements along dimension 1}}
    %a = tile.reduce max %t {dim = 1 : i64, group = 48 : i64} : !tile.frag<1x96xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>> -> !tile.frag<1x2xf32, #tile.reduced<#tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>, dim = 1, group = 48>>
  }
  tile.return
}
