// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tk-opt %s -tile-to-cpu-llvm | FileCheck %s --check-prefix=CPU

// The DSL's integer scalar layer (dsl/lib/ScalarIntegers.cpp) is upstream
// arith and math inside a tile.parallel region: signed division and
// remainder, xor, equality, int <-> float, i64 truncation and popcount need
// no pattern of tk's own. On the GPU they become the PTX instructions of
// their name (popcount one popc, not a loop; the remainder is formed from
// the quotient), on the CPU LLVM's.
// PTX-DAG: div.s32
// PTX-DAG: xor.b32
// PTX-DAG: popc.b32
// PTX-DAG: cvt.rn.f32.s32
// PTX-DAG: cvt.rzi.s32.f32
// CPU-DAG: llvm.sdiv
// CPU-DAG: llvm.srem
// CPU-DAG: llvm.xor
// CPU-DAG: llvm.intr.ctpop
// CPU-DAG: llvm.sitofp
// CPU-DAG: llvm.fptosi
tile.kernel @k(%a: memref<?x128xi32>, %d: memref<?x128xi32>, %x: memref<?x128xf32>, %out: memref<?x128xi32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %a, %c0 : memref<?x128xi32>
  %n = arith.ceildivui %m, %c4 : index
  tile.grid (%b) in (%n) {
    %r = arith.muli %b, %c4 : index
    %t = tile.load %a[%r, %c0] : memref<?x128xi32> -> !tile.frag<4x128xi32>
    %e = tile.load %d[%r, %c0] : memref<?x128xi32> -> !tile.frag<4x128xi32>
    %f = tile.load %x[%r, %c0] : memref<?x128xf32> -> !tile.frag<4x128xf32>
    %y = tile.parallel %t, %e, %f : (!tile.frag<4x128xi32>, !tile.frag<4x128xi32>, !tile.frag<4x128xf32>) -> !tile.frag<4x128xi32> {
    ^bb0(%v: i32, %dv: i32, %g: f32):
      %q = arith.divsi %v, %dv : i32
      %rem = arith.remsi %v, %dv : i32
      %x1 = arith.xori %q, %rem : i32
      %p = math.ctpop %x1 : i32
      %pq = arith.subi %p, %q : i32
      %fl = arith.sitofp %pq : i32 to f32
      %s = arith.addf %fl, %g : f32
      %i = arith.fptosi %s : f32 to i32
      %w = arith.extsi %i : i32 to i64
      %w2 = arith.muli %w, %w : i64
      %lo = arith.trunci %w2 : i64 to i32
      %eq = arith.cmpi eq, %lo, %v : i32
      %res = arith.select %eq, %v, %lo : i32
      tile.yield %res : i32
    }
    tile.store %y, %out[%r, %c0] : !tile.frag<4x128xi32>, memref<?x128xi32>
  }
  tile.return
}
