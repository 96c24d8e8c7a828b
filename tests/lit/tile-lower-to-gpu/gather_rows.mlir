// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// tile.gather_rows: a [32, 64] bf16 tile whose row i is row idx[i] of x (the
// per_channel_cast_fused row gather). The row index arrives expanded along
// the columns, in the result's layout; each thread's 16-byte run reads the
// row its first element names, and zero when that row is negative or past
// the end (signed checks against memref.dim).
// CHECK-LABEL: gpu.func @rows
// CHECK: vector.extract
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: arith.index_cast
// CHECK: vector.load %{{.*}} : memref<?x64xbf16>, vector<8xbf16>
// CPU-LABEL: func.func @rows
// CPU: arith.cmpi sge
// CPU: scf.if
// CPU: memref.load %{{.*}} : memref<?x64xbf16>
// PTX: ld.global.v4.b32
tile.kernel @rows(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %idx: memref<?x1xi32>, %out: memref<?x64xbf16> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %idx, %c0 : memref<?x1xi32>
  %n = arith.ceildivui %m, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %i = tile.load %idx[%r, %c0] : memref<?x1xi32> -> !tile.frag<32x1xi32>
    %wide = tile.expand %i {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x1xi32> -> !tile.frag<32x64xi32>
    %t = tile.gather_rows %x[%wide, %c0] : memref<?x64xbf16>, !tile.frag<32x64xi32> -> !tile.frag<32x64xbf16>
    tile.store %t, %out[%r, %c0] : !tile.frag<32x64xbf16>, memref<?x64xbf16>
  }
  tile.return
}

// With skip_outside, a chunk whose row is outside is not read: the load sits
// in an scf.if whose else yields zeros (no clamped address, no select).
// CHECK-LABEL: gpu.func @skip
// CHECK: scf.if
// CHECK: vector.load %{{.*}} : memref<?x64xbf16>, vector<8xbf16>
// CHECK: } else {
// CPU-LABEL: func.func @skip
tile.kernel @skip(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %idx: memref<?x1xi32>, %out: memref<?x64xbf16> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %idx, %c0 : memref<?x1xi32>
  %n = arith.ceildivui %m, %c32 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c32 : index
    %i = tile.load %idx[%r, %c0] : memref<?x1xi32> -> !tile.frag<32x1xi32>
    %wide = tile.expand %i {dim = 1 : i64, group = 64 : i64} : !tile.frag<32x1xi32> -> !tile.frag<32x64xi32>
    %t = tile.gather_rows %x[%wide, %c0] {skip_outside} : memref<?x64xbf16>, !tile.frag<32x64xi32> -> !tile.frag<32x64xbf16>
    tile.store %t, %out[%r, %c0] : !tile.frag<32x64xbf16>, memref<?x64xbf16>
  }
  tile.return
}
