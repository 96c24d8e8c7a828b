// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts=vector-bytes=4 | FileCheck %s --check-prefix=NARROW

// The schedule field max_access_bytes (KernelBuilder::maxAccessBytes) caps each thread's
// contiguous access below the pass's vector-bytes: 8 e4m3 codes per thread
// instead of 16, so 8 lanes span the 64 columns (4 at 16 bytes) and the
// column reduction crosses 4 lanes instead of 8. A smaller vector-bytes
// (the ablation) still wins over a larger cap.
// CHECK: tile.load {{.*}} -> !tile.frag<128x64xf8E4M3FN, #tile.blocked<vec = [1, 8], lanes = [4, 8], warps = [4, 1]>>
// CHECK: tile.reduce absmax {{.*}} -> !tile.frag<1x64xf32, #tile.reduced<#tile.blocked<vec = [1, 8], lanes = [4, 8], warps = [4, 1]>, dim = 0, group = 128>>
// NARROW: tile.load {{.*}} -> !tile.frag<128x64xf8E4M3FN, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>
tile.kernel @k(%x: memref<?x64xf8E4M3FN>, %out: memref<?x64xf32>) attributes {schedule = #tile.schedule<max_access_bytes = 8>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf8E4M3FN> -> !tile.frag<128x64xf8E4M3FN>
    %f = tile.convert %t : !tile.frag<128x64xf8E4M3FN> -> !tile.frag<128x64xf32>
    %a = tile.reduce absmax %f {dim = 0 : i64, group = 128 : i64} : !tile.frag<128x64xf32> -> !tile.frag<1x64xf32>
    tile.store %a, %out[%c0, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}
