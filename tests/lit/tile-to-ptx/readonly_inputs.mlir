// RUN: tk-opt %s -tile-to-ptx="target=sm_80 readonly-loads=true" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx="target=sm_90a readonly-loads=true" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx="target=sm_100a readonly-loads=true" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=DEFAULT

// With readonly_loads (here for every kernel, as the pipeline's readonly-loads option does) a
// tensor the kernel only reads is noalias read-only memory and loads through
// the non-coherent path; one it reads and writes (y) does not. By default
// every load is a plain ld.global.
// CHECK-DAG: ld.global.nc.v
// CHECK-DAG: ld.global.v
// DEFAULT-NOT: ld.global.nc
tile.kernel @k(%x: memref<?x512xf32> {tile.align = 16 : i64}, %y: memref<?x512xf32> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x512xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c8 : index
    %a = tile.load %x[%r, %c0] : memref<?x512xf32> -> !tile.frag<8x512xf32>
    %b = tile.load %y[%r, %c0] : memref<?x512xf32> -> !tile.frag<8x512xf32>
    %s = tile.parallel %a, %b : (!tile.frag<8x512xf32>, !tile.frag<8x512xf32>) -> !tile.frag<8x512xf32> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.addf %u, %v : f32
      tile.yield %w : f32
    }
    tile.store %s, %y[%r, %c0] : !tile.frag<8x512xf32>, memref<?x512xf32>
  }
  tile.return
}
