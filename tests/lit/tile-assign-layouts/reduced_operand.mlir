// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s

// A map of a reduction's result takes the reduction's layout, whatever
// layout its users hint (here the expand after it): the reduced fragment
// cannot take the hint, and the map must share its operand's layout (the
// hint used to win and made a layout conflict). The top-k of a group tile
// reduces an i64 (key, position) pair this way, then unpacks the position.
// CHECK-LABEL: tile.kernel @unpack_after_reduce
// CHECK: %[[R:.*]] = tile.reduce max {{.*}} -> !tile.frag<14x1x1xi64, [[L:#tile.reduced<#tile.reduced<.*>, dim = 1, group = 4>]]>
// CHECK: tile.parallel %[[R]] : (!tile.frag<14x1x1xi64, [[L]]>) -> !tile.frag<14x1x1xi32, [[L]]>
tile.kernel @unpack_after_reduce(%x: memref<?x4x18xf32, strided<[72, 18, 1]>>, %y: memref<?x2x1xi64, strided<[2, 1, 1]>>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0, %c0] : memref<?x4x18xf32, strided<[72, 18, 1]>> -> !tile.frag<14x4x18xf32>
    %m = tile.reduce max %t {dim = 2 : i64, group = 18 : i64} : !tile.frag<14x4x18xf32> -> !tile.frag<14x4x1xf32>
    %p = tile.parallel %m : (!tile.frag<14x4x1xf32>) -> !tile.frag<14x4x1xi64> {
    ^bb0(%v: f32):
      %i = arith.bitcast %v : f32 to i32
      %w = arith.extsi %i : i32 to i64
      tile.yield %w : i64
    }
    %r = tile.reduce max %p {dim = 1 : i64, group = 4 : i64} : !tile.frag<14x4x1xi64> -> !tile.frag<14x1x1xi64>
    %u = tile.parallel %r : (!tile.frag<14x1x1xi64>) -> !tile.frag<14x1x1xi32> {
    ^bb0(%v: i64):
      %n = arith.trunci %v : i64 to i32
      tile.yield %n : i32
    }
    %e = tile.parallel %u : (!tile.frag<14x1x1xi32>) -> !tile.frag<14x1x1xi64> {
    ^bb0(%v: i32):
      %w = arith.extsi %v : i32 to i64
      tile.yield %w : i64
    }
    tile.store %e, %y[%c0, %c0, %c0] : !tile.frag<14x1x1xi64>, memref<?x2x1xi64, strided<[2, 1, 1]>>
    %x4 = tile.expand %u {dim = 1 : i64, group = 4 : i64} : !tile.frag<14x1x1xi32> -> !tile.frag<14x4x1xi32>
    %s = tile.parallel %x4 : (!tile.frag<14x4x1xi32>) -> !tile.frag<14x4x1xi64> {
    ^bb0(%v: i32):
      %w = arith.extsi %v : i32 to i64
      tile.yield %w : i64
    }
    %r2 = tile.reduce max %s {dim = 1 : i64, group = 4 : i64} : !tile.frag<14x4x1xi64> -> !tile.frag<14x1x1xi64>
    tile.store %r2, %y[%c0, %c1, %c0] : !tile.frag<14x1x1xi64>, memref<?x2x1xi64, strided<[2, 1, 1]>>
  }
  tile.return
}
