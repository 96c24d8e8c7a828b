// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx=target=sm_100a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s

// A 3-stage tile.pipeline on every target: 16-byte cp.async with a source
// size (zero fill at the tensor's edge) into a 16-byte aligned buffer of three
// versions, two groups committed ahead, then per iteration one commit, a wait
// that leaves two groups in flight and a barrier, and 16-byte shared reads.
// CHECK: .shared .align 16 .b8 {{.*}}[12288];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group 2;
// CHECK-NEXT: bar.sync 0;
// CHECK: ld.shared.v4.b32
// CHECK: cp.async.wait_group 0;
tile.kernel @strip(%x: memref<?x256xbf16> {tile.align = 16 : i64}, %y: memref<?x256xbf16> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b, %h) in (%m, %c4) {
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %col = arith.muli %h, %c64 : index
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0i to %c8 {stages = 3 : i64} {
      %t8 = arith.muli %b, %c8 : index
      %t = arith.addi %t8, %i : index
      %row = arith.muli %t, %c32 : index
      tile.copy %x[%row, %col], %buf : memref<?x256xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
      %v = tile.load %buf[%c0i, %c0i] : memref<32x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<32x64xbf16>
      tile.store %v, %y[%row, %col] : !tile.frag<32x64xbf16>, memref<?x256xbf16>
    }
  }
  tile.return
}
