// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: tk-opt %s -tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX

// A branch the whole block takes or skips (KernelBuilder::when): one row per
// block, its flag read on every thread (tile.to_scalar) and an scf.if that
// yields the accumulator, updated or carried through. The flag shares the
// row index's layout, reduced along the row, which every thread holds:
// no relayout. The result takes the carried value's layout.
// LAYOUT-LABEL: tile.kernel @uniform
// LAYOUT-NOT: tile.relayout
// LAYOUT: tile.to_scalar %{{.*}} : !tile.frag<1x1xi32, #tile.reduced<
// LAYOUT: scf.if %{{.*}} -> (!tile.frag<1x1024xf32, #tile.blocked<vec = [1, 4], lanes = [1, 32], warps = [1, 4]>>)
// GPU-LABEL: gpu.func @uniform
// GPU: vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// GPU: scf.if %{{.*}} -> (vector<8xf32>)
// GPU: vector.load
// GPU: } else {
// GPU-NEXT: scf.yield %{{.*}} : vector<8xf32>
// CPU-LABEL: func.func @uniform
// CPU: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x1xi32>
// CPU: scf.if %{{.*}} -> (memref<1x1024xf32>)
// PTX-LABEL: .entry uniform
// PTX: bra
// PTX-NOT: .local
tile.kernel @uniform(%x: memref<?x1024xf32> {tile.align = 16 : i64}, %pos: memref<?x1xi32>, %out: memref<?x1024xf32> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %pos, %c0 : memref<?x1xi32>
  tile.grid (%b) in (%m) {
    %p = tile.load %pos[%b, %c0] : memref<?x1xi32> -> !tile.frag<1x1xi32>
    %named = tile.parallel %p : (!tile.frag<1x1xi32>) -> !tile.frag<1x1xi32> {
    ^bb0(%v: i32):
      %z = arith.constant 0 : i32
      %ge = arith.cmpi sge, %v, %z : i32
      %e = arith.extui %ge : i1 to i32
      tile.yield %e : i32
    }
    %flag = tile.to_scalar %named : !tile.frag<1x1xi32> -> i32
    %c0i = arith.constant 0 : i32
    %taken = arith.cmpi ne, %flag, %c0i : i32
    %wide = tile.expand %p {dim = 1 : i64, group = 1024 : i64} : !tile.frag<1x1xi32> -> !tile.frag<1x1024xi32>
    %acc = tile.load %out[%b, %c0] : memref<?x1024xf32> -> !tile.frag<1x1024xf32>
    %r = scf.if %taken -> (!tile.frag<1x1024xf32>) {
      %row = tile.gather_rows %x[%wide, %c0] : memref<?x1024xf32>, !tile.frag<1x1024xi32> -> !tile.frag<1x1024xf32>
      %sum = tile.parallel %acc, %row : (!tile.frag<1x1024xf32>, !tile.frag<1x1024xf32>) -> !tile.frag<1x1024xf32> {
      ^bb0(%u: f32, %w: f32):
        %a = arith.addf %u, %w : f32
        tile.yield %a : f32
      }
      scf.yield %sum : !tile.frag<1x1024xf32>
    } else {
      scf.yield %acc : !tile.frag<1x1024xf32>
    }
    tile.store %r, %out[%b, %c0] : !tile.frag<1x1024xf32>, memref<?x1024xf32>
  }
  tile.return
}

// A flag laid out on one thread (a blocked one-element fragment, here by its
// own load with no other user) moves to a replicated layout first.
// LAYOUT-LABEL: tile.kernel @moved
// LAYOUT: tile.relayout %{{.*}} : !tile.frag<1x1xi32, #tile.blocked<{{.*}}>> -> !tile.frag<1x1xi32, #tile.reduced<
// LAYOUT-NEXT: tile.to_scalar
tile.kernel @moved(%flags: memref<?x1xi32>, %out: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %flags, %c0 : memref<?x1xi32>
  tile.grid (%b) in (%m) {
    %f = tile.load %flags[%b, %c0] : memref<?x1xi32> -> !tile.frag<1x1xi32>
    %flag = tile.to_scalar %f : !tile.frag<1x1xi32> -> i32
    %c0i = arith.constant 0 : i32
    %taken = arith.cmpi ne, %flag, %c0i : i32
    %t = tile.load %out[%b, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    %r = scf.if %taken -> (!tile.frag<1x64xf32>) {
      %d = tile.parallel %t : (!tile.frag<1x64xf32>) -> !tile.frag<1x64xf32> {
      ^bb0(%u: f32):
        %a = arith.addf %u, %u : f32
        tile.yield %a : f32
      }
      scf.yield %d : !tile.frag<1x64xf32>
    } else {
      scf.yield %t : !tile.frag<1x64xf32>
    }
    tile.store %r, %out[%b, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// A reduced flag whose root has padding along the reduced dimension (a row
// of 64 over 256 threads: the warps past the row would read zero) or a
// group inside one thread's vector (only the first thread holds the total)
// is not held by every thread: it moves first.
// LAYOUT-LABEL: tile.kernel @padded
// LAYOUT: tile.relayout %{{.*}} -> !tile.frag<1x1xi32, #tile.reduced<#tile.blocked<vec = [1, 1], lanes = [1, 32], warps = [1, 8]>, dim = 1, group = 256>>
// LAYOUT-NEXT: tile.to_scalar
// LAYOUT-LABEL: tile.kernel @in_thread
// LAYOUT: tile.relayout %{{.*}} -> !tile.frag<1xf32, #tile.reduced<#tile.blocked<vec = [1], lanes = [32], warps = [2]>, dim = 0, group = 64>>
// LAYOUT-NEXT: tile.to_scalar
tile.kernel @padded(%x: memref<?x64xf32> {tile.align = 16 : i64}, %pos: memref<?x1xi32>, %out: memref<?x64xf32> {tile.align = 16 : i64}) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %pos, %c0 : memref<?x1xi32>
  tile.grid (%b) in (%m) {
    %p = tile.load %pos[%b, %c0] : memref<?x1xi32> -> !tile.frag<1x1xi32>
    %flag = tile.to_scalar %p : !tile.frag<1x1xi32> -> i32
    %c0i = arith.constant 0 : i32
    %taken = arith.cmpi sge, %flag, %c0i : i32
    %wide = tile.expand %p {dim = 1 : i64, group = 64 : i64} : !tile.frag<1x1xi32> -> !tile.frag<1x64xi32>
    %acc = tile.load %out[%b, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    %r = scf.if %taken -> (!tile.frag<1x64xf32>) {
      %row = tile.gather_rows %x[%wide, %c0] : memref<?x64xf32>, !tile.frag<1x64xi32> -> !tile.frag<1x64xf32>
      scf.yield %row : !tile.frag<1x64xf32>
    } else {
      scf.yield %acc : !tile.frag<1x64xf32>
    }
    tile.store %r, %out[%b, %c0] : !tile.frag<1x64xf32>, memref<?x64xf32>
  }
  tile.return
}
tile.kernel @in_thread(%x: memref<?xf32>, %out: memref<?xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0] : memref<?xf32> -> !tile.frag<4xf32>
    %s = tile.reduce sum %t {dim = 0 : i64, group = 4 : i64} : !tile.frag<4xf32> -> !tile.frag<1xf32>
    %v = tile.to_scalar %s : !tile.frag<1xf32> -> f32
    %taken = arith.cmpf ogt, %v, %v : f32
    %u = tile.load %out[%c0] : memref<?xf32> -> !tile.frag<64xf32>
    %r = scf.if %taken -> (!tile.frag<64xf32>) {
      scf.yield %u : !tile.frag<64xf32>
    } else {
      scf.yield %u : !tile.frag<64xf32>
    }
    tile.store %r, %out[%c0] : !tile.frag<64xf32>, memref<?xf32>
  }
  tile.return
}
