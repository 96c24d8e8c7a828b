// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s

// A bf16 tile cast to e4m3 and transposed (per_channel_cast_and_transpose):
// the kernel's widest access is bf16, so the input gets 8-element chunks
// (in 4-row blocks for the transpose); the transposed e4m3 fragment, written
// as it comes out of shared memory, gets chunks of 16 of its own 1-byte
// elements: 16-byte stores.
// CHECK: tile.load {{.*}} -> !tile.frag<128x64xbf16, #tile.blocked<vec = [4, 8], lanes = [4, 8], warps = [4, 1]>>
// CHECK: tile.transpose {{.*}} -> !tile.frag<64x128xf8E4M3FN, #tile.blocked<vec = [1, 16], lanes = [4, 8], warps = [4, 1]>>
tile.kernel @k(%x: memref<?x64xbf16>, %out: memref<64x?xf8E4M3FN>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<128x64xbf16>
    %f = tile.convert %t : !tile.frag<128x64xbf16> -> !tile.frag<128x64xf32>
    %q = tile.convert %f : !tile.frag<128x64xf32> -> !tile.frag<128x64xf8E4M3FN>
    %r = tile.transpose %q : !tile.frag<128x64xf8E4M3FN> -> !tile.frag<64x128xf8E4M3FN>
    tile.store %r, %out[%c0, %c0] : !tile.frag<64x128xf8E4M3FN>, memref<64x?xf8E4M3FN>
  }
  tile.return
}
