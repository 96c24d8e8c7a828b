// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.store with a mask: a [32, 64] bf16 tile whose unmasked store would be
// 16-byte vectors is written element by element, each element only where its
// mask element is nonzero (and inside the tensor). The mask takes the value's
// layout.
// CHECK-LABEL: gpu.func @blocked
// CHECK-NOT: vector.store
// CHECK: vector.extract
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<?x64xbf16>
// CHECK-NOT: vector.store
// CHECK-LABEL: gpu.func @reduced
// CPU-LABEL: func.func @blocked
// CPU: memref.load %{{.*}} : memref<32x64xi32>
// CPU: arith.cmpi ne
// CPU: scf.if
// CPU: memref.store %{{.*}} : memref<?x64xbf16>
// CPU-LABEL: func.func @reduced
// PTX-LABEL: .entry blocked
// PTX-NOT: st.global.v
// PTX: st.global.b16
// PTX-LABEL: .entry reduced
// PTX: st.global.b32
tile.kernel @blocked(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %m: memref<?x64xi32> {tile.align = 16 : i64}, %out: memref<?x64xbf16> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %rows = memref.dim %x, %c0 : memref<?x64xbf16>
  %n = arith.ceildivui %rows, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %k = tile.load %m[%r, %c0] : memref<?x64xi32> -> !tile.frag<32x64xi32>
    tile.store %t, %out[%r, %c0] mask %k : !tile.frag<32x64xbf16>, memref<?x64xbf16>, !tile.frag<32x64xi32>
  }
  tile.return
}

// A reduced value (each row's maximum) with a mask computed from it: the
// mask is reduced alike, and the one thread that writes each row's maximum
// also tests that row's mask.
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<?x1xf32>
// CPU: arith.cmpi ne
// CPU: scf.if
tile.kernel @reduced(%x: memref<?x64xf32> {tile.align = 16 : i64}, %out: memref<?x1xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %rows = memref.dim %x, %c0 : memref<?x64xf32>
  %n = arith.ceildivui %rows, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xf32> -> !tile.frag<32x64xf32>
    %mx = tile.reduce max %t {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x64xf32> -> !tile.frag<32x1xf32>
    %pos = tile.parallel %mx : (!tile.frag<32x1xf32>) -> !tile.frag<32x1xi8> {
    ^bb0(%v: f32):
      %z = arith.constant 0.0 : f32
      %gt = arith.cmpf ogt, %v, %z : f32
      %e = arith.extui %gt : i1 to i8
      tile.yield %e : i8
    }
    tile.store %mx, %out[%r, %c0] mask %pos : !tile.frag<32x1xf32>, memref<?x1xf32>, !tile.frag<32x1xi8>
  }
  tile.return
}
