// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize -mlir-print-ir-before=tile-lower-to-gpu 2>&1 | FileCheck %s
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=swizzle=false -canonicalize | FileCheck %s --check-prefix=PADDED
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU

// A transpose goes through a shared buffer. The input is laid out in 4-row
// blocks (a backward hint), so each thread writes 4 consecutive elements of a
// transposed row as one vector; then a barrier and 16-byte reads of the rows.
// The buffer is swizzled: 16-byte unit k of row R lives at unit
// k ^ ((R >> 3) & 7) (the input's vector is 8 elements, so a warp's writes
// hit rows 8 apart), with no padding.
// CHECK: tile.load {{.*}} #tile.blocked<vec = [1, 4, 8]
// CHECK: gpu.func @t{{.*}} workgroup(%[[BUF:.*]] : memref<1x64x64xi16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.xori
// CHECK: vector.store %{{.*}}, %[[BUF]]{{.*}} {alignment = 8 : i64} : memref<1x64x64xi16, #gpu.address_space<workgroup>>, vector<4xi16>
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK: vector.load %[[BUF]]{{.*}} {alignment = 16 : i64} : memref<1x64x64xi16, #gpu.address_space<workgroup>>, vector<8xi16>
// Without the swizzle (TK_ABLATE=swizzle), rows are padded by 16 bytes.
// PADDED: workgroup(%[[BUF:.*]] : memref<1x64x72xi16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// PADDED-NOT: arith.xori
// PADDED: vector.store %{{.*}}, %[[BUF]]{{.*}} : memref<1x64x72xi16, #gpu.address_space<workgroup>>, vector<4xi16>
// PADDED: vector.load %[[BUF]]{{.*}} : memref<1x64x72xi16, #gpu.address_space<workgroup>>, vector<8xi16>
// CPU: memref.load %{{.*}}[%{{.*}}, %[[J:.*]], %[[I:.*]]] : memref<1x64x64xi16>
tile.kernel @t(%x: memref<?x64x64xi16> {tile.align = 16 : i64}, %y: memref<?x64x64xi16> {tile.align = 16 : i64})
    attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x64x64xi16>
  tile.grid (%b) in (%n) {
    %t = tile.load %x[%b, %c0, %c0] : memref<?x64x64xi16> -> !tile.frag<1x64x64xi16>
    %u = tile.transpose %t : !tile.frag<1x64x64xi16> -> !tile.frag<1x64x64xi16>
    tile.store %u, %y[%b, %c0, %c0] : !tile.frag<1x64x64xi16>, memref<?x64x64xi16>
  }
  tile.return
}
