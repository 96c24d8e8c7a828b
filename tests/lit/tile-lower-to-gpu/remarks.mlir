// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=remarks=true -verify-diagnostics -o /dev/null

// Each access narrower than its layout's 16-byte chunk says which and why.
tile.kernel @k(%a: memref<?x?xf32>, %b: memref<?x512xf32, strided<[?, 1]>> {tile.align = 4 : i64},
               %c: memref<?x512xf32> {tile.align = 16 : i64}, %d: memref<?x510xf32> {tile.align = 16 : i64},
               %e: memref<?x?xf32> {tile.align = 16 : i64, tile.dim_multiples = array<i64: 1, 4>},
               %f: memref<?x?xf32> {tile.align = 16 : i64, tile.dim_multiples = array<i64: 1, 2>})
    attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.grid (%i) in (%c1) {
    // expected-remark @+1 {{access of 'memref<?x?xf32>' is 4 bytes wide per thread instead of 16: the last dimension is dynamic, so a chunk could straddle the tensor's edge}}
    %t = tile.load %a[%c0, %c0] : memref<?x?xf32> -> !tile.frag<4x512xf32>
    // expected-remark @+1 {{access of 'memref<?x512xf32, strided<[?, 1]>>' is 4 bytes wide per thread instead of 16: the tensor promises only 4-byte alignment of its pointer and strides (tile.align)}}
    tile.store %t, %b[%c0, %c0] : !tile.frag<4x512xf32>, memref<?x512xf32, strided<[?, 1]>>
    // expected-remark @+1 {{access of 'memref<?x512xf32>' is 4 bytes wide per thread instead of 16: the tile origin along the last dimension is not provably a multiple of 4}}
    tile.store %t, %c[%c0, %c3] : !tile.frag<4x512xf32>, memref<?x512xf32>
    // No remark: full-width, aligned, provably whole chunks.
    tile.store %t, %c[%c0, %c0] : !tile.frag<4x512xf32>, memref<?x512xf32>
    // expected-remark @+1 {{the last dimension (510) is not a multiple of the 4-element chunk}}
    tile.store %t, %d[%c0, %c0] : !tile.frag<4x512xf32>, memref<?x510xf32>
    // A dynamic last dimension promised to be a multiple of the chunk
    // (KernelBuilder::dynamic(name, 4)): no remark; of half the chunk: one.
    tile.store %t, %e[%c0, %c0] : !tile.frag<4x512xf32>, memref<?x?xf32>
    // expected-remark @+1 {{the last dimension is dynamic, so a chunk could straddle the tensor's edge (a size promised to be a multiple of the chunk}}
    tile.store %t, %f[%c0, %c0] : !tile.frag<4x512xf32>, memref<?x?xf32>
  }
  tile.return
}
