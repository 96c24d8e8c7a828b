// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s

// scf.for carries fragments (KernelBuilder::loop) through external models of
// LayoutInferenceOpInterface (ScfLayouts.cpp). A carried fragment has one
// layout: its initial value's, in the loop's result and in the body's block
// argument.
// CHECK-LABEL: tile.kernel @acc
// CHECK: %[[Z:.*]] = tile.load {{.*}} -> !tile.frag<4x256xf32, #[[L:tile.blocked<vec = \[1, 4\], lanes = \[1, 32\], warps = \[2, 2\]>]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (!tile.frag<4x256xf32, #[[L]]>)
// CHECK: tile.parallel {{.*}} -> !tile.frag<4x256xf32, #[[L]]>
// CHECK: scf.yield {{.*}} : !tile.frag<4x256xf32, #[[L]]>
// CHECK: tile.reduce sum
tile.kernel @acc(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%c1) {
    %z = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
    %s = scf.for %i = %c4 to %m step %c4 iter_args(%acc = %z) -> (!tile.frag<4x256xf32>) {
      %t = tile.load %x[%i, %c0] : memref<?x256xf32> -> !tile.frag<4x256xf32>
      %n = tile.parallel %acc, %t : (!tile.frag<4x256xf32>, !tile.frag<4x256xf32>) -> !tile.frag<4x256xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      scf.yield %n : !tile.frag<4x256xf32>
    }
    %r = tile.reduce sum %s {dim = 1 : i64, group = 256 : i64} : !tile.frag<4x256xf32> -> !tile.frag<4x1xf32>
    tile.store %r, %out[%c0, %c0] : !tile.frag<4x1xf32>, memref<?x1xf32>
  }
  tile.return
}

// What the body's ops want of the carried value (here the transpose's wish
// for its operand, which the sum passes on) is asked of the initial value;
// the transposed value the body yields is laid out otherwise, so it moves to
// the carried layout (tile.relayout) before the next iteration reads it.
// CHECK-LABEL: tile.kernel @transposed
// CHECK: %[[Z:.*]] = tile.load {{.*}} -> !tile.frag<64x64xf32, #[[C:tile.blocked<vec = \[4, 4\], lanes = \[2, 16\], warps = \[4, 1\]>]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (!tile.frag<64x64xf32, #[[C]]>)
// CHECK: %[[T:.*]] = tile.transpose {{.*}} -> !tile.frag<64x64xf32, #tile.blocked<vec = [1, 4], lanes = [2, 16], warps = [4, 1]>>
// CHECK: %[[R:.*]] = tile.relayout %[[T]] {{.*}} -> !tile.frag<64x64xf32, #[[C]]>
// CHECK: scf.yield %[[R]]
tile.kernel @transposed(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %x, %c0 : memref<?x64xf32>
  tile.grid (%b) in (%c1) {
    %z = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<64x64xf32>
    %s = scf.for %i = %c64 to %m step %c64 iter_args(%acc = %z) -> (!tile.frag<64x64xf32>) {
      %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<64x64xf32>
      %n = tile.parallel %acc, %t : (!tile.frag<64x64xf32>, !tile.frag<64x64xf32>) -> !tile.frag<64x64xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      %r = tile.transpose %n : !tile.frag<64x64xf32> -> !tile.frag<64x64xf32>
      scf.yield %r : !tile.frag<64x64xf32>
    }
    tile.store %s, %out[%c0, %c0] : !tile.frag<64x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// A carried value nothing asks a layout of, which the body only adds to a
// value it computes, takes the layout the body computes it in: here the
// row sums of each chunk, in the reduction's layout (each row's sum held by
// the lanes that reduced it). The loop adds them without moving them; the
// constant initial value moves once, before the loop, and the store after
// it asks for its own layout (tile.relayout, written by the author).
// CHECK-LABEL: tile.kernel @reduced_sums
// CHECK: %[[I:.*]] = tile.relayout {{.*}} -> !tile.frag<8x1xf32, #[[R:tile.reduced<.*>]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[I]]) -> (!tile.frag<8x1xf32, #[[R]]>)
// CHECK-NOT: tile.relayout
// CHECK: tile.reduce sum {{.*}} -> !tile.frag<8x1xf32, #[[R]]>
// CHECK-NOT: tile.relayout
// CHECK: scf.yield {{.*}} : !tile.frag<8x1xf32, #[[R]]>
// CHECK: tile.relayout
// CHECK: tile.store
tile.kernel @reduced_sums(%x: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %k = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%c1) {
    %i0 = tile.iota {dim = 0 : i64} : !tile.frag<8x1xi32>
    %z = tile.parallel %i0 : (!tile.frag<8x1xi32>) -> !tile.frag<8x1xf32> {
    ^bb0(%u: i32):
      %zero = arith.constant 0.0 : f32
      tile.yield %zero : f32
    }
    %s = scf.for %i = %c0 to %k step %c256 iter_args(%acc = %z) -> (!tile.frag<8x1xf32>) {
      %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<8x256xf32>
      %r = tile.reduce sum %t {dim = 1 : i64, group = 256 : i64} : !tile.frag<8x256xf32> -> !tile.frag<8x1xf32>
      %n = tile.parallel %acc, %r : (!tile.frag<8x1xf32>, !tile.frag<8x1xf32>) -> !tile.frag<8x1xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      scf.yield %n : !tile.frag<8x1xf32>
    }
    %m = tile.relayout %s : !tile.frag<8x1xf32> -> !tile.frag<8x1xf32>
    tile.store %m, %out[%c0, %c0] : !tile.frag<8x1xf32>, memref<?x1xf32>
  }
  tile.return
}

// A waiting carried value takes the layout its users compute in, not
// necessarily the yielded value's: here the sum takes the load's layout and
// the body yields a value computed in a layout the author states, which moves
// to the carried layout at the yield, as for any carried value.
// CHECK-LABEL: tile.kernel @yield_moves
// CHECK: scf.for {{.*}} -> (!tile.frag<8x256xf32, #[[L:tile.blocked<vec = \[1, 4\], lanes = \[1, 32\], warps = \[2, 2\]>]]>)
// CHECK: tile.parallel {{.*}} -> !tile.frag<8x256xf32, #[[L]]>
// CHECK: tile.relayout {{.*}} -> !tile.frag<8x256xf32, #tile.blocked<vec = [1, 1], lanes = [8, 4], warps = [1, 4]>>
// CHECK: %[[E:.*]] = tile.parallel {{.*}} -> !tile.frag<8x256xf32, #tile.blocked<vec = [1, 1], lanes = [8, 4], warps = [1, 4]>>
// CHECK: %[[M:.*]] = tile.relayout %[[E]] {{.*}} -> !tile.frag<8x256xf32, #[[L]]>
// CHECK: scf.yield %[[M]]
tile.kernel @yield_moves(%x: memref<?x256xf32>, %out: memref<?x256xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %k = memref.dim %x, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%c1) {
    %i0 = tile.iota {dim = 0 : i64} : !tile.frag<8x256xi32>
    %z = tile.parallel %i0 : (!tile.frag<8x256xi32>) -> !tile.frag<8x256xf32> {
    ^bb0(%u: i32):
      %zero = arith.constant 0.0 : f32
      tile.yield %zero : f32
    }
    %s = scf.for %i = %c0 to %k step %c256 iter_args(%acc = %z) -> (!tile.frag<8x256xf32>) {
      %t = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<8x256xf32>
      %n = tile.parallel %acc, %t : (!tile.frag<8x256xf32>, !tile.frag<8x256xf32>) -> !tile.frag<8x256xf32> {
      ^bb0(%u: f32, %v: f32):
        %a = arith.addf %u, %v : f32
        tile.yield %a : f32
      }
      %e = tile.relayout %n : !tile.frag<8x256xf32> -> !tile.frag<8x256xf32, #tile.blocked<vec = [1, 1], lanes = [8, 4], warps = [1, 4]>>
      %f = tile.parallel %e : (!tile.frag<8x256xf32, #tile.blocked<vec = [1, 1], lanes = [8, 4], warps = [1, 4]>>) -> !tile.frag<8x256xf32> {
      ^bb0(%u: f32):
        %h = arith.mulf %u, %u : f32
        tile.yield %h : f32
      }
      scf.yield %f : !tile.frag<8x256xf32>
    }
    %m = tile.relayout %s : !tile.frag<8x256xf32> -> !tile.frag<8x256xf32>
    tile.store %m, %out[%c0, %c0] : !tile.frag<8x256xf32>, memref<?x256xf32>
  }
  tile.return
}
