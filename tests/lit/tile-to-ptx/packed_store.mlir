// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefixes=CHECK,HW
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s

// Packed codes leave the thread as the words they were packed into: E5M6
// builds three 32-bit words per 8 codes, and the thread's 24-byte chunk (16
// codes) is stored as those words, in pairs (8-byte aligned). Sliced byte by
// byte, the backend rebuilt every word from its bytes with byte permutes
// (350 prmt in the bf16 e5m6 cast, 56 after).
// CHECK-LABEL: .entry e5m6
// HW: cvt.rz.f16x2.f32
// CHECK-NOT: prmt
// CHECK-COUNT-3: st.global.b64
// CHECK-NOT: prmt
// CHECK: ret;
tile.kernel @e5m6(%x: memref<?x1024xf32> {tile.align = 16 : i64}, %y: memref<?x1536xi8> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x1024xf32>
  tile.grid (%b) in (%m) {
    %t = tile.load %x[%b, %c0] : memref<?x1024xf32> -> !tile.frag<1x1024xf32>
    %q = tile.pack_e5m6 %t : !tile.frag<1x1024xf32> -> !tile.frag<1x1536xi8>
    tile.store %q, %y[%b, %c0] : !tile.frag<1x1536xi8>, memref<?x1536xi8>
  }
  tile.return
}
