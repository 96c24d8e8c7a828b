// RUN: tk-opt %s -split-input-file -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s

// A division on a reduction's result: each group of 128 columns is held by
// the 32 lanes of a warp, which all hold the same four maxima (2 rows x 2
// groups). Four lanes split the four slots (one division each instead of
// four), then each slot comes back by an xor shuffle whose mask (computed,
// 0 on the lane that computed it) is no constant.
// CHECK-LABEL: gpu.func @divide
// CHECK: arith.divf {{.*}} : vector<1xf32>
// CHECK-NOT: arith.divf
// CHECK-COUNT-4: gpu.shuffle  xor %{{[0-9]+}}, %{{[0-9]+}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
tile.kernel @divide(%x: memref<?x1024xf32>, %s: memref<?x8xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %x, %c0 : memref<?x1024xf32>
  %n = arith.ceildivui %m, %c2 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c2 : index
    %t = tile.load %x[%r, %c0] : memref<?x1024xf32> -> !tile.frag<2x1024xf32>
    %a = tile.reduce absmax %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<2x1024xf32> -> !tile.frag<2x8xf32>
    %q = tile.parallel %a : (!tile.frag<2x8xf32>) -> !tile.frag<2x8xf32> {
    ^bb0(%v: f32):
      %c448 = arith.constant 448.0 : f32
      %d = arith.divf %c448, %v : f32
      tile.yield %d : f32
    }
    tile.store %q, %s[%r, %c0] : !tile.frag<2x8xf32>, memref<?x8xf32>
  }
  tile.return
}

// -----

// A cheap body (an absolute value and a maximum; math.absf is one of the
// math ops that count as cheap) stays on every lane: no shuffles.
// CHECK-LABEL: gpu.func @clamp
// CHECK: arith.maximumf {{.*}} : vector<4xf32>
// CHECK-NOT: gpu.shuffle
tile.kernel @clamp(%x: memref<?x1024xf32>, %s: memref<?x8xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %x, %c0 : memref<?x1024xf32>
  %n = arith.ceildivui %m, %c2 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c2 : index
    %t = tile.load %x[%r, %c0] : memref<?x1024xf32> -> !tile.frag<2x1024xf32>
    %a = tile.reduce absmax %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<2x1024xf32> -> !tile.frag<2x8xf32>
    %q = tile.parallel %a : (!tile.frag<2x8xf32>) -> !tile.frag<2x8xf32> {
    ^bb0(%v: f32):
      %lo = arith.constant 1.0e-4 : f32
      %abs = math.absf %v : f32
      %d = arith.maximumf %abs, %lo : f32
      tile.yield %d : f32
    }
    tile.store %q, %s[%r, %c0] : !tile.frag<2x8xf32>, memref<?x8xf32>
  }
  tile.return
}

// -----

// A column scale (per_channel_cast): the absmax over 128 rows spans 8 lanes
// and 4 warps, combined through shared memory; then every lane of every warp
// holds the thread's 16 column maxima. The 8 lanes of each warp split them:
// two divisions per lane instead of 16, and 16 xor shuffles (computed masks)
// bring the other 14 back.
// CHECK-LABEL: gpu.func @column_scale
// CHECK: gpu.barrier
// CHECK: arith.divf {{.*}} : vector<2xf32>
// CHECK-NOT: arith.divf
// CHECK-COUNT-16: gpu.shuffle  xor %{{[0-9]+}}, %{{[0-9]+}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
#cols = #tile.blocked<vec = [1, 16], lanes = [8, 4], warps = [4, 1]>
tile.kernel @column_scale(%x: memref<?x64xf32>, %s: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %x, %c0 : memref<?x64xf32>
  %n = arith.ceildivui %m, %c128 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c128 : index
    %t = tile.load %x[%r, %c0] : memref<?x64xf32> -> !tile.frag<128x64xf32, #cols>
    %a = tile.reduce absmax %t {dim = 0 : i64, group = 128 : i64} : !tile.frag<128x64xf32, #cols> -> !tile.frag<1x64xf32>
    %q = tile.parallel %a : (!tile.frag<1x64xf32>) -> !tile.frag<1x64xf32> {
    ^bb0(%v: f32):
      %c448 = arith.constant 448.0 : f32
      %d = arith.divf %v, %c448 : f32
      tile.yield %d : f32
    }
    tile.store %q, %s[%b, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}
