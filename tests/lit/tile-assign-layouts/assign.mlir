// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts=vector-bytes=32 | FileCheck %s --check-prefix=WIDE

// bf16 in, f8 out: the loaded element is 2 bytes, so each thread owns 8
// consecutive elements (16-byte loads, each warp-wide load one 512-byte span;
// the f8 stores are 8 bytes per thread, still contiguous across the warp).
// CHECK: tile.load {{.*}} -> !tile.frag<4x1024xbf16, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// CHECK: tile.reduce absmax {{.*}} -> !tile.frag<4x8xf32, #tile.reduced<#tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>, dim = 1, group = 128>>
// CHECK: tile.expand {{.*}} -> !tile.frag<4x1024xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// CHECK: tile.convert {{.*}} -> !tile.frag<4x1024xf8E4M3FN, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// WIDE: tile.load {{.*}} -> !tile.frag<4x1024xbf16, #tile.blocked<vec = [1, 16], lanes = [1, 32], warps = [2, 2]>>
tile.kernel @k(%x: memref<?x1024xbf16>, %out: memref<?x1024xf8E4M3FN>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x1024xbf16> -> !tile.frag<4x1024xbf16>
    %f = tile.convert %t : !tile.frag<4x1024xbf16> -> !tile.frag<4x1024xf32>
    %a = tile.reduce absmax %f {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x1024xf32> -> !tile.frag<4x8xf32>
    %e = tile.expand %a {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x8xf32> -> !tile.frag<4x1024xf32>
    %q = tile.convert %e : !tile.frag<4x1024xf32> -> !tile.frag<4x1024xf8E4M3FN>
    tile.store %q, %out[%c0, %c0] : !tile.frag<4x1024xf8E4M3FN>, memref<?x1024xf8E4M3FN>
  }
  tile.return
}
