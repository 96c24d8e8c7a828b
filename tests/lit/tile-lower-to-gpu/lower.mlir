// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=fp8-hardware=false -canonicalize | FileCheck %s --check-prefix=SOFT

// CHECK: gpu.module @k
// CHECK: gpu.func @k(%{{.*}}: memref<?x512xbf16, strided<[?, 1]>>, %{{.*}}: memref<?x512xi8>, %{{.*}}: memref<?x4xf32, strided<[?, ?]>>)
// CHECK-SAME: kernel
// 16-byte vector loads, aligned as the argument promises, branch-free: the
// address is clamped in bounds and the value selected to zero outside.
// CHECK-NOT: scf.if
// CHECK: %[[V:.*]] = vector.load {{.*}} {alignment = 16 : i64} : memref<?x512xbf16, strided<[?, 1]>>, vector<8xbf16>
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : vector<8xbf16>
// The absmax of a 128-wide group: 8 in-thread elements, then lanes 1, 2, 4, 8 apart.
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32, %c32_i32
// CHECK: gpu.shuffle xor {{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor {{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor {{.*}}, %c8_i32, %c32_i32
// CHECK: nvvm.convert.f32x2.to.f8x2
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<?x512xi8>, vector<8xi8>
// SOFT-NOT: nvvm.convert
// SOFT: arith.addf {{.*}} : vector<32xf32>
// SOFT: arith.trunci {{.*}} : vector<32xi32> to vector<32xi8>
tile.kernel @k(%x: memref<?x512xbf16, strided<[?, 1]>> {tile.align = 16 : i64}, %out: memref<?x512xf8E4M3FN> {tile.align = 16 : i64}, %sf: memref<?x4xf32, strided<[?, ?]>>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x512xbf16, strided<[?, 1]>>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c8 : index
    %t = tile.load %x[%r, %c0] : memref<?x512xbf16, strided<[?, 1]>> -> !tile.frag<8x512xbf16>
    %f = tile.convert %t : !tile.frag<8x512xbf16> -> !tile.frag<8x512xf32>
    %a = tile.reduce absmax %f {dim = 1 : i64, group = 128 : i64} : !tile.frag<8x512xf32> -> !tile.frag<8x4xf32>
    tile.store %a, %sf[%r, %c0] : !tile.frag<8x4xf32>, memref<?x4xf32, strided<[?, ?]>>
    %e = tile.expand %a {dim = 1 : i64, group = 128 : i64} : !tile.frag<8x4xf32> -> !tile.frag<8x512xf32>
    %p = tile.parallel %f, %e : (!tile.frag<8x512xf32>, !tile.frag<8x512xf32>) -> !tile.frag<8x512xf32> {
    ^bb0(%u: f32, %w: f32):
      %y = arith.divf %u, %w : f32
      tile.yield %y : f32
    }
    %q = tile.convert %p : !tile.frag<8x512xf32> -> !tile.frag<8x512xf8E4M3FN>
    tile.store %q, %out[%r, %c0] : !tile.frag<8x512xf8E4M3FN>, memref<?x512xf8E4M3FN>
  }
  tile.return
}
