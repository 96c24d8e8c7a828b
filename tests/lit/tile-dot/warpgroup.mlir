// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=warpgroup-mma=true -canonicalize | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
// RUN: tk-opt %s -tile-assign-layouts '-tile-lower-to-gpu=warpgroup-mma=true remarks=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-ptx=target=sm_80 | FileCheck %s --check-prefix=SYNC
// RUN: tk-opt %s -tile-to-ptx=target=sm_100a | FileCheck %s --check-prefix=SYNC

// tile.dot {warpgroup} in the register form: 128 rows over 8 warps, two
// warpgroups of 64 rows each. The transposed rhs [32, 64] is stored, rounded
// to TF32, as 8 steps of [32, 8] in 8 x 16-byte core matrices (1 KB a
// step, 2048 i32 in all), fenced for the async proxy; each warpgroup then
// issues 8 wgmma m64n32k8 (A from the lhs registers, B by descriptor: the
// leading byte offset 128 / 16 = 8 in bits 16-29 and the stride 256 / 16 =
// 16 in bits 32-45: 68720001024; a step 64 further), commits and waits
// with the accumulators tied through.
// GPU-LABEL: gpu.func @warpgroups
// GPU-SAME: workgroup(%{{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>
// GPU: memref.store {{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>
// GPU: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// GPU: gpu.barrier
// GPU: arith.ori {{.*}}, %c68720001024_i64
// GPU: llvm.inline_asm has_side_effects {{.*}}"wgmma.fence.sync.aligned;"
// GPU-COUNT-8: "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, {$16, $17, $18, $19}, $20, 1, 1, 1;"
// GPU: nvvm.wgmma.commit.group.sync.aligned
// GPU: "wgmma.wait_group.sync.aligned 0;"
// GPU: gpu.barrier
// GPU-NOT: nvvm.mma.sync
// GPU-LABEL: gpu.func @two_warps
// GPU-NOT: wgmma.
// GPU: nvvm.mma.sync
// Without the target's wgmma the attribute changes nothing and says nothing.
// OFF-NOT: tile.dot {warpgroup} runs
// Where the product cannot run on warpgroups (32 rows on 2 warps), a remark says why.
// REMARK: warpgroup.mlir:{{[0-9]+}}:{{.*}} remark: tile.dot {warpgroup} runs as mma.sync: 2 warps are not whole warpgroups of 4
// PTX-LABEL: .entry warpgroups
// PTX: fence.proxy.async.shared::cta;
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 0;
// SYNC-LABEL: .entry warpgroups
// SYNC-NOT: wgmma.
// SYNC: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
tile.kernel @warpgroups(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %w: memref<32x64xf32> {tile.align = 16 : i64},
                   %y: memref<?x32xf32> {tile.align = 16 : i64}) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %w[%c0, %c0] : memref<32x64xf32> -> !tile.frag<32x64xf32>
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<128x64xbf16>
    %z = tile.load %y[%c0, %c0] : memref<?x32xf32> -> !tile.frag<128x32xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<128x32xf32>) {rhs_transposed, warpgroup} : !tile.frag<128x64xbf16>, !tile.frag<32x64xf32> -> !tile.frag<128x32xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<128x32xf32>, memref<?x32xf32>
  }
  tile.return
}

tile.kernel @two_warps(%x: memref<?x64xbf16> {tile.align = 16 : i64}, %w: memref<32x64xf32> {tile.align = 16 : i64},
                       %y: memref<?x32xf32> {tile.align = 16 : i64}) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %w[%c0, %c0] : memref<32x64xf32> -> !tile.frag<32x64xf32>
    %a = tile.load %x[%c0, %c0] : memref<?x64xbf16> -> !tile.frag<32x64xbf16>
    %z = tile.load %y[%c0, %c0] : memref<?x32xf32> -> !tile.frag<32x32xf32>
    %c = tile.dot %a, %v acc(%z : !tile.frag<32x32xf32>) {rhs_transposed, warpgroup} : !tile.frag<32x64xbf16>, !tile.frag<32x64xf32> -> !tile.frag<32x32xf32>
    tile.store %c, %y[%c0, %c0] : !tile.frag<32x32xf32>, memref<?x32xf32>
  }
  tile.return
}
