// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts=vector-bytes=32 | FileCheck %s --check-prefix=WIDE

// The schedule field transpose_rows = 8 (KernelBuilder::transposeRowsPerThread): the tile
// transposed is held in blocks of 8 rows per thread, so that 4 lanes span 32
// rows and a column reduction over 32 rows stays inside one warp
// (per_channel_cast_and_transpose at b = 32, 64 x 64 tiles of 64 threads).
// The reduction takes the same layout; the transposed e4m3 fragment keeps
// 16-byte chunks.
// CHECK: tile.load {{.*}} -> !tile.frag<64x64xbf16, #tile.blocked<vec = [8, 8], lanes = [4, 8], warps = [2, 1]>>
// CHECK: tile.reduce absmax {{.*}} -> !tile.frag<2x64xf32, #tile.reduced<#tile.blocked<vec = [8, 8], lanes = [4, 8], warps = [2, 1]>, dim = 0, group = 32>>
// CHECK: tile.transpose {{.*}} -> !tile.frag<64x64xf8E4M3FN, #tile.blocked<vec = [1, 16], lanes = [8, 4], warps = [2, 1]>>
// With 32-byte vectors (sm_100a) 16 bf16 columns per thread would leave half
// of the 64 threads idle on the 8-row blocks: the vector halves to 8 there
// (the same layout), and stays 16 on the 4-row blocks, which fill them.
// WIDE: tile.load {{.*}} -> !tile.frag<64x64xbf16, #tile.blocked<vec = [8, 8], lanes = [4, 8], warps = [2, 1]>>
// WIDE-LABEL: tile.kernel @four
// WIDE: tile.load {{.*}} -> !tile.frag<64x64xbf16, #tile.blocked<vec = [4, 16], lanes = [8, 4], warps = [2, 1]>>
// Without the attribute: 4 rows per thread, 16 rows per warp (a 32-row
// group spans both warps).
// CHECK-LABEL: tile.kernel @four
// CHECK: tile.load {{.*}} -> !tile.frag<64x64xbf16, #tile.blocked<vec = [4, 8], lanes = [4, 8], warps = [2, 1]>>
tile.kernel @eight(%x: memref<?x64xbf16>, %out: memref<64x?xf8E4M3FN>, %sf: memref<?x64xf32>) attributes {schedule = #tile.schedule<transpose_rows = 8>, threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
    %f = tile.convert %t : !tile.frag<64x64xbf16> -> !tile.frag<64x64xf32>
    %m = tile.reduce absmax %f {dim = 0 : i64, group = 32 : i64} : !tile.frag<64x64xf32> -> !tile.frag<2x64xf32>
    tile.store %m, %sf[%c0, %c0] : !tile.frag<2x64xf32>, memref<?x64xf32>
    %q = tile.convert %f : !tile.frag<64x64xf32> -> !tile.frag<64x64xf8E4M3FN>
    %r = tile.transpose %q : !tile.frag<64x64xf8E4M3FN> -> !tile.frag<64x64xf8E4M3FN>
    tile.store %r, %out[%c0, %c0] : !tile.frag<64x64xf8E4M3FN>, memref<64x?xf8E4M3FN>
  }
  tile.return
}
tile.kernel @four(%x: memref<?x64xbf16>, %out: memref<64x?xf8E4M3FN>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
    %f = tile.convert %t : !tile.frag<64x64xbf16> -> !tile.frag<64x64xf32>
    %q = tile.convert %f : !tile.frag<64x64xf32> -> !tile.frag<64x64xf8E4M3FN>
    %r = tile.transpose %q : !tile.frag<64x64xf8E4M3FN> -> !tile.frag<64x64xf8E4M3FN>
    tile.store %r, %out[%c0, %c0] : !tile.frag<64x64xf8E4M3FN>, memref<64x?xf8E4M3FN>
  }
  tile.return
}
