// RUN: tk-opt %s -tile-pipeline-copies | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX

// A pipeline that carries a fragment becomes an scf.for carrying it: the
// copies of iteration i + 1 start, iteration i's version is waited for,
// the body adds the row into the carried value, a barrier protects the
// version the next iteration's copies overwrite, and the yield hands the
// sum on; the loop's result is the scf.for's. In the PTX the sum stays in
// registers (no local memory) across the cp.async loop.
// CHECK-LABEL: tile.kernel @row_sums
// CHECK: tile.copy {{.*}} {async}
// CHECK: tile.commit_copies
// CHECK: %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO:.*]]) -> (!tile.frag<1x256xf32>)
// CHECK: tile.copy {{.*}} {async}
// CHECK: tile.wait_copies {pending = 1 : i64}
// CHECK: %[[ROW:.*]] = tile.load
// CHECK: %[[NEXT:.*]] = tile.parallel %[[ACC]], %{{.*}}
// CHECK: tile.barrier
// CHECK-NEXT: scf.yield %[[NEXT]] : !tile.frag<1x256xf32>
// CHECK: tile.wait_copies {pending = 0 : i64}
// CHECK: tile.store %[[SUM]], %{{.*}}
// PTX: cp.async.cg.shared.global
// PTX: cp.async.wait_group 1;
// PTX: add.rn.f32
// PTX: st.global.v4.b32
// PTX-NOT: .local
tile.kernel @row_sums(%x: memref<?x256xbf16> {tile.align = 16 : i64}, %y: memref<?x256xf32> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %y, %c0 : memref<?x256xf32>
  tile.grid (%b) in (%m) {
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %buf = tile.alloc : memref<1x256xbf16, #gpu.address_space<workgroup>>
    %first = tile.load %y[%b, %c0i] : memref<?x256xf32> -> !tile.frag<1x256xf32>
    %zero = tile.parallel %first : (!tile.frag<1x256xf32>) -> !tile.frag<1x256xf32> {
    ^bb0(%u: f32):
      %z = arith.constant 0.0 : f32
      tile.yield %z : f32
    }
    %sum = tile.pipeline %i = %c0i to %c8 iter_args(%acc = %zero) -> (!tile.frag<1x256xf32>) {stages = 2 : i64} {
      %b8 = arith.muli %b, %c8 : index
      %row = arith.addi %b8, %i : index
      tile.copy %x[%row, %c0i], %buf : memref<?x256xbf16>, memref<1x256xbf16, #gpu.address_space<workgroup>>
      %v = tile.load %buf[%c0i, %c0i] : memref<1x256xbf16, #gpu.address_space<workgroup>> -> !tile.frag<1x256xbf16>
      %next = tile.parallel %acc, %v : (!tile.frag<1x256xf32>, !tile.frag<1x256xbf16>) -> !tile.frag<1x256xf32> {
      ^bb0(%a: f32, %e: bf16):
        %w = arith.extf %e : bf16 to f32
        %s = arith.addf %a, %w : f32
        tile.yield %s : f32
      }
      tile.yield %next : !tile.frag<1x256xf32>
    }
    tile.store %sum, %y[%b, %c0i] : !tile.frag<1x256xf32>, memref<?x256xf32>
  }
  tile.return
}
