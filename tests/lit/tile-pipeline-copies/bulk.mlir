// RUN: tk-opt %s -tile-pipeline-copies=bulk=true | FileCheck %s
// RUN: tk-opt %s -tile-to-ptx="target=sm_90a copy-engine=bulk" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-ptx="target=sm_100a copy-engine=bulk" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX
// RUN: not tk-opt %s -tile-to-ptx="target=sm_80 copy-engine=bulk" 2>&1 | FileCheck %s --check-prefix=SM80

// The bulk engine: one mbarrier per buffer version (one arrival: one copy per
// stage), copies that signal their version's barrier, no cp.async groups;
// iteration i waits for parity ((i - lb) / 2) mod 2 of version (i - lb) mod 2,
// then a block barrier (rows past the tensor are zero-filled by plain stores).
// CHECK: %[[BARS:.*]] = tile.alloc : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: tile.init_barriers %[[BARS]] {count = 1 : i64}
// CHECK: tile.copy {{.*}} barrier %[[BARS]][%{{.*}}] {async}
// CHECK-NOT: tile.commit_copies
// CHECK: scf.for %[[I:.*]] = %[[LB:.*]] to
// CHECK: tile.copy {{.*}} barrier %[[BARS]][%{{.*}}] {async}
// CHECK: %[[REL:.*]] = arith.subi %[[I]], %[[LB]]
// CHECK: %[[SLOT:.*]] = arith.remui %[[REL]], %c2
// CHECK: %[[USES:.*]] = arith.divui %{{.*}}, %c2
// CHECK: %[[PARITY:.*]] = arith.andi %[[USES]], %c1
// CHECK: tile.wait_barrier %[[BARS]][%[[SLOT]]], %[[PARITY]]
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.wait_copies

// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [
// PTX: fence.proxy.async.shared::cta;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-NOT: cp.async.commit_group

// SM80: tile-to-ptx: TK_COPY_ENGINE=bulk needs sm_90a or newer {{.*}} the target is sm_80
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
    tile.pipeline %i = %c0i to %c8 {stages = 2 : i64} {
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

// A pipeline without copies is a plain loop: no mbarriers, no copy groups.
// CHECK-LABEL: tile.kernel @no_copies
// CHECK-NOT: tile.init_barriers
// CHECK-NOT: tile.commit_copies
// CHECK: scf.for
tile.kernel @no_copies(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.grid (%b) in (%c1) {
    tile.pipeline %i = %c0 to %c4 {stages = 2 : i64} {
      %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
      tile.store %t, %x[%i, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
    }
  }
  tile.return
}
