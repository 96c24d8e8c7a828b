// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=remarks=true -o /dev/null 2>&1 | FileCheck %s

// With remarks, a tile.dot that cannot run from mma.sync's registers says
// why; one that does is silent (the accesses' own remarks aside).
// CHECK-NOT: remarks.mlir:16:{{.*}}tile.dot stages
// CHECK: remarks.mlir:20:{{.*}} remark: tile.dot stages its operands and product in shared memory instead of running from mma.sync's registers: M = 32 is not a multiple of 16 rows x 4 warps
// CHECK: remarks.mlir:22:{{.*}} remark: tile.dot stages {{.*}}: it has no accumulator
tile.kernel @k(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %w: memref<16x64xf32> {tile.align = 16 : i64},
               %y: memref<?x16xf32> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.frag<16x64xf32>
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
    %z = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<64x16xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<64x16xf32>) {rhs_transposed} : !tile.frag<64x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<64x16xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<64x16xf32>, memref<?x16xf32>
    %a2 = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %z2 = tile.load %y[%c0, %c0] : memref<?x16xf32> -> !tile.frag<32x16xf32>
    %c2 = tile.dot %a2, %v acc(%z2 : !tile.frag<32x16xf32>) {rhs_transposed} : !tile.frag<32x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<32x16xf32>
    tile.store %c2, %y[%c0, %c0] : !tile.frag<32x16xf32>, memref<?x16xf32>
    %c3 = tile.dot %a, %v {rhs_transposed} : !tile.frag<64x64xbf16>, !tile.frag<16x64xf32> -> !tile.frag<64x16xf32>
    tile.store %c3, %y[%c0, %c0] : !tile.frag<64x16xf32>, memref<?x16xf32>
  }
  tile.return
}
