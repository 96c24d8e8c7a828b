// RUN: tk-opt %s -tile-lower-to-gpu=swizzle-bytes=3 -verify-diagnostics
// RUN: not tk-opt %s -tile-to-ptx="swizzle-bytes=3" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not tk-opt %s -tile-to-ptx="target=sm_70" 2>&1 | FileCheck %s --check-prefix=TARGET

// swizzle-bytes (TK_SWIZZLE_BYTES) is the smallest element size whose
// transposes are swizzled: 1, 2 or 4. The whole pipeline checks its options
// before it runs, as tk checks the TK_ variables that set them, and refuses
// an unknown target rather than compiling for another.
// PIPELINE: tile-to-ptx: TK_SWIZZLE_BYTES must be 1, 2 or 4 (0 or unset: the default), got 3
// TARGET: tile-to-ptx: unknown target 'sm_70' (sm_80, sm_90a or sm_100a)
// expected-error @+1 {{tile-lower-to-gpu: swizzle-bytes must be 1, 2 or 4, got 3}}
module {
  tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
    %c1 = arith.constant 1 : index
    tile.grid (%b) in (%c1) {
    }
    tile.return
  }
}
