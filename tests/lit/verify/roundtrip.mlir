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

// The schedule prints the fields set, in declaration order; silu and
// sigmoid print their form only when it is not the default.
// CHECK-LABEL: tile.kernel @scheduled
// CHECK-SAME: schedule = #tile.schedule<max_access_bytes = 8, transpose_rows = 8, reread_thread_index = true, warps_along_rows = true>
// CHECK: tile.silu %{{.*}} : f32
// CHECK: tile.silu %{{.*}} form ieee_div : f32
// CHECK: tile.sigmoid %{{.*}} : f32
tile.kernel @scheduled(%x: memref<?x64xf32> {tile.align = 16 : i64, tile.dim_multiples = array<i64: 4, 1>}) attributes {threads = 64 : i64, schedule = #tile.schedule<warps_along_rows = true, reread_thread_index = true, transpose_rows = 8, max_access_bytes = 8>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x64xf32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    %s = tile.parallel %t : (!tile.frag<4x64xf32>) -> !tile.frag<4x64xf32> {
    ^bb0(%u: f32):
      %a = tile.silu %u : f32
      %b2 = tile.silu %u form ieee_div : f32
      %c = tile.sigmoid %u : f32
      %p = arith.mulf %a, %b2 : f32
      %q = arith.mulf %p, %c : f32
      tile.yield %q : f32
    }
    tile.store %s, %x[%r, %c0] : !tile.frag<4x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// A pipeline's carried values print as iter_args with their result types,
// and its yield is printed; one without them prints as before.
// CHECK-LABEL: tile.kernel @carried_pipeline
// CHECK: %{{.*}} = tile.pipeline %[[I:.*]] = %{{.*}} to %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!tile.frag<1x64xf32>) {stages = 2 : i64} {
// CHECK: tile.yield %{{.*}} : !tile.frag<1x64xf32>
// CHECK: tile.pipeline %{{.*}} = %{{.*}} to %{{.*}} {stages = 3 : i64} {
// CHECK-NOT: tile.yield
// CHECK: tile.return
tile.kernel @carried_pipeline(%x: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.grid (%b) in (%c4) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    %s = tile.pipeline %i = %c0 to %c4 iter_args(%acc = %t) -> (!tile.frag<1x64xf32>) {stages = 2 : i64} {
      %u = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
      tile.yield %u : !tile.frag<1x64xf32>
    }
    tile.pipeline %j = %c0 to %c4 {stages = 3 : i64} {
    }
    tile.store %s, %x[%b, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// CHECK-LABEL: tile.kernel @masked
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : !tile.frag<4x8xi64>, memref<?x8xi64>, !tile.frag<4x8xi32>
tile.kernel @masked(%x: memref<?x8xi64>, %m: memref<?x8xi32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x8xi64> -> !tile.frag<4x8xi64>
    %k = tile.load %m[%c0, %c0] : memref<?x8xi32> -> !tile.frag<4x8xi32>
    tile.store %t, %x[%c0, %c0] mask %k : !tile.frag<4x8xi64>, memref<?x8xi64>, !tile.frag<4x8xi32>
  }
  tile.return
}
