// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -split-input-file -verify-diagnostics | FileCheck %s

// A bf16 max reduces in bf16 inside a thread; shuffles move 32-bit values, so
// the partial results cross lanes as f32 (exact for max) and come back as bf16.
// CHECK-LABEL: gpu.func @bf16max
// CHECK: arith.maxnumf {{.*}} : bf16
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK: gpu.shuffle xor
// CHECK: arith.truncf {{.*}} : f32 to bf16
tile.kernel @bf16max(%x: memref<?x256xbf16>, %y: memref<?x2xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b) in (%m) {
    %t = tile.load %x[%b, %c0] : memref<?x256xbf16> -> !tile.frag<1x256xbf16>
    %a = tile.reduce max %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<1x256xbf16> -> !tile.frag<1x2xbf16>
    tile.store %a, %y[%b, %c0] : !tile.frag<1x2xbf16>, memref<?x2xbf16>
  }
  tile.return
}

// -----

tile.kernel @bf16sum(%x: memref<?x256xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%b, %c0] : memref<?x256xbf16> -> !tile.frag<1x256xbf16>
    // expected-error @+1 {{a sum of 'bf16' elements would round at every step: convert the fragment to f32 first}}
    %a = tile.reduce sum %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<1x256xbf16> -> !tile.frag<1x2xbf16>
  }
  tile.return
}
