// RUN: tk-opt %s -tile-assign-layouts -verify-diagnostics

// expected-error @+1 {{tile.transpose_rows must be 4, 8 or 16, got 3}}
tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 64 : i64, tile.transpose_rows = 3 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<64x64xbf16>
  }
  tile.return
}
