// RUN: tk-opt %s | tk-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @scale
// CHECK: tile.grid (%{{.*}}) in (%{{.*}})
// CHECK: tile.alloc : memref<4x64xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy
// CHECK: tile.load {{.*}} -> !tile.frag<4x64xbf16>
// CHECK: tile.reduce max {{.*}} {dim = 1 : i64, group = 16 : i64}
// CHECK: tile.expand
// CHECK: tile.parallel
// CHECK: tile.store
tile.kernel @scale(%x: memref<?x64xbf16, strided<[?, 1]>>, %y: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x64xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %buf = tile.alloc : memref<4x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %x[%r, %c0], %buf : memref<?x64xbf16, strided<[?, 1]>>, memref<4x64xbf16, #gpu.address_space<workgroup>>
    %t = tile.load %buf[%c0, %c0] : memref<4x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<4x64xbf16>
    %f = tile.convert %t : !tile.frag<4x64xbf16> -> !tile.frag<4x64xf32>
    %m16 = tile.reduce max %f {dim = 1 : i64, group = 16 : i64} : !tile.frag<4x64xf32> -> !tile.frag<4x4xf32>
    %e = tile.expand %m16 {dim = 1 : i64, group = 16 : i64} : !tile.frag<4x4xf32> -> !tile.frag<4x64xf32>
    %d = tile.parallel %f, %e : (!tile.frag<4x64xf32>, !tile.frag<4x64xf32>) -> !tile.frag<4x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %q = arith.subf %u, %v : f32
      tile.yield %q : f32
    }
    tile.store %d, %y[%r, %c0] : !tile.frag<4x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// CHECK-LABEL: tile.kernel @lookup
// CHECK: tile.relayout %{{.*}} : !tile.frag<1x32xi8> -> !tile.frag<1x32xi8, #tile.blocked<vec = [1, 2], lanes = [2, 16], warps = [1, 1]>>
// CHECK: tile.e2m1_to_e4m3 %{{.*}}, %{{.*}} : !tile.frag<1x32xi8, #tile.blocked<vec = [1, 2], lanes = [2, 16], warps = [1, 1]>>, !tile.frag<1x64xi32> -> !tile.frag<1x64xf8E4M3FN>
tile.kernel @lookup(%x: memref<?x32xi8>, %s: memref<?x64xi32>, %y: memref<?x64xf8E4M3FN>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %codes = tile.load %x[%c0, %c0] : memref<?x32xi8> -> !tile.frag<1x32xi8>
    %moved = tile.relayout %codes : !tile.frag<1x32xi8> -> !tile.frag<1x32xi8, #tile.blocked<vec = [1, 2], lanes = [2, 16], warps = [1, 1]>>
    %shift = tile.load %s[%c0, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    %q = tile.e2m1_to_e4m3 %moved, %shift : !tile.frag<1x32xi8, #tile.blocked<vec = [1, 2], lanes = [2, 16], warps = [1, 1]>>, !tile.frag<1x64xi32> -> !tile.frag<1x64xf8E4M3FN>
    tile.store %q, %y[%c0, %c0] : !tile.frag<1x64xf8E4M3FN>, memref<?x64xf8E4M3FN>
  }
  tile.return
}
