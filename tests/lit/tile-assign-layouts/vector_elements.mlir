// RUN: tk-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics | FileCheck %s

// The schedule's vector_elements sets the values each thread holds along
// the last dimension in default layouts (8 here, where the target's 16
// bytes of f32 would give 4).
// CHECK-LABEL: tile.kernel @eight
// CHECK: tile.load {{.*}} -> !tile.frag<4x256xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [4, 1]>>
tile.kernel @eight(%x: memref<?x256xf32>, %y: memref<?x256xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<vector_elements = 8>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    tile.store %t, %y[%c0, %c0] : !tile.frag<4x256xf32>, memref<?x256xf32>
  }
  tile.return
}

// -----

// A vector an op of the kernel cannot take is an error naming the op.
// expected-error @+1 {{schedule: vector_elements = 4 is not a multiple of 8, which tile.pack_e5m6 needs}}
tile.kernel @four(%x: memref<?x256xf32>, %y: memref<?x384xi8>) attributes {threads = 128 : i64, schedule = #tile.schedule<vector_elements = 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<1x256xf32>
    %p = tile.pack_e5m6 %t : !tile.frag<1x256xf32> -> !tile.frag<1x384xi8>
    tile.store %p, %y[%c0, %c0] : !tile.frag<1x384xi8>, memref<?x384xi8>
  }
  tile.return
}
