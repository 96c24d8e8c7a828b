// RUN: tk-opt %s -tile-lower-to-gpu=swizzle-bytes=3 -verify-diagnostics

// swizzle-bytes (TK_SWIZZLE_BYTES) is the smallest element size whose
// transposes are swizzled: 1, 2 or 4.
// expected-error @+1 {{tile-lower-to-gpu: swizzle-bytes must be 1, 2 or 4, got 3}}
module {
  tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
    %c1 = arith.constant 1 : index
    tile.grid (%b) in (%c1) {
    }
    tile.return
  }
}
