// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-cpu -canonicalize | FileCheck %s --check-prefix=CPU

// E5M6 unpacking turns every 12 bytes into 8 values. The kernel's schedule
// asks for 8 values per thread (vector_elements, as cast_back does on
// 16-byte targets), and the backward hint gives each thread the 12 bytes
// (three words) they come from, so that the bf16 results are one 16-byte
// store per thread although the packed input is the largest fragment. On
// the GPU the codes widen through f16 (one cvt each); the CPU lowering
// decodes with integer arithmetic (no f16 library calls).
// Without a schedule the default vector (16 bytes of the widest main element,
// the i8 input: 16) is rounded to a multiple of 8, which unpack_e5m6 needs.
// LAYOUT: tile.load {{.*}} -> !tile.frag<1x1536xi8, #tile.blocked<vec = [1, 12], lanes = [1, 32], warps = [1, 4]>>
// LAYOUT: tile.unpack_e5m6 {{.*}} -> !tile.frag<1x1024xf32, #tile.blocked<vec = [1, 8], lanes = [1, 32], warps = [1, 4]>>
// CHECK-LABEL: gpu.func @e5m6
// Thread t's 12 bytes start at 12 t: only 4-byte aligned however aligned the
// tensor is (an 8-byte claim would make odd threads fault on the GPU).
// CHECK: vector.load {{.*}} {alignment = 4 : i64} : memref<?x1536xi8>, vector<12xi8>
// CHECK: vector.bitcast {{.*}} : vector<12xi8> to vector<3xi32>
// CHECK: arith.bitcast {{.*}} : vector<8xi16> to vector<8xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<?x1024xbf16>, vector<8xbf16>
// LAYOUT-LABEL: tile.kernel @default_runs
// LAYOUT: tile.unpack_e5m6 {{.*}} -> !tile.frag<1x1024xf32, #tile.blocked<vec = [1, 16], lanes = [1, 32], warps = [1, 2]>>
// CPU-LABEL: func.func @e5m6
// CPU: arith.uitofp
// CPU-NOT: arith.extf
// CPU: return
tile.kernel @e5m6(%x: memref<?x1536xi8> {tile.align = 16 : i64}, %y: memref<?x1024xbf16> {tile.align = 16 : i64}) attributes {threads = 128 : i64, schedule = #tile.schedule<vector_elements = 8>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %q = tile.load %x[%c0, %c0] : memref<?x1536xi8> -> !tile.frag<1x1536xi8>
    %v = tile.unpack_e5m6 %q : !tile.frag<1x1536xi8> -> !tile.frag<1x1024xf32>
    %h = tile.convert %v : !tile.frag<1x1024xf32> -> !tile.frag<1x1024xbf16>
    tile.store %h, %y[%c0, %c0] : !tile.frag<1x1024xbf16>, memref<?x1024xbf16>
  }
  tile.return
}

tile.kernel @default_runs(%x: memref<?x1536xi8> {tile.align = 16 : i64}, %y: memref<?x1024xbf16> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %q = tile.load %x[%c0, %c0] : memref<?x1536xi8> -> !tile.frag<1x1536xi8>
    %v = tile.unpack_e5m6 %q : !tile.frag<1x1536xi8> -> !tile.frag<1x1024xf32>
    %h = tile.convert %v : !tile.frag<1x1024xf32> -> !tile.frag<1x1024xbf16>
    tile.store %h, %y[%c0, %c0] : !tile.frag<1x1024xbf16>, memref<?x1024xbf16>
  }
  tile.return
}
