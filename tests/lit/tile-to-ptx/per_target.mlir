// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tk-opt %s -tile-to-ptx=target=sm_100a | FileCheck %s --check-prefix=SM100

// The whole pipeline ends in a gpu.binary holding PTX text.
// SM90: gpu.binary @k
// SM90-SAME: .target sm_90a
// SM90-SAME: ld.global.v4.b32
// SM90-SAME: cvt.rn.satfinite.e4m3x2.f32
// SM90-SAME: st.global.b32
// SM80: .target sm_80
// SM80-NOT: cvt.rn.satfinite.e4m3x2
// SM100: .target sm_100a
// SM100-SAME: cvt.rn.satfinite.e4m3x2.f32
tile.kernel @k(%x: memref<?x512xf32> {tile.align = 16 : i64}, %out: memref<?x512xf8E4M3FN> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x512xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c8 : index
    %t = tile.load %x[%r, %c0] : memref<?x512xf32> -> !tile.frag<8x512xf32>
    %q = tile.convert %t : !tile.frag<8x512xf32> -> !tile.frag<8x512xf8E4M3FN>
    tile.store %q, %out[%r, %c0] : !tile.frag<8x512xf8E4M3FN>, memref<?x512xf8E4M3FN>
  }
  tile.return
}
