// RUN: tk-opt %s -tile-to-ptx='target=sm_90a dependent-launch=true' | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=WAIT
// RUN: tk-opt %s -tile-to-ptx='target=sm_100a dependent-launch=true' | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=WAIT
// RUN: tk-opt %s -tile-to-ptx='target=sm_80 dependent-launch=true' | FileCheck %s --check-prefix=NONE
// RUN: tk-opt %s -tile-to-ptx=target=sm_90a | FileCheck %s --check-prefix=NONE
// RUN: sed 's/threads = 128 : i64}/schedule = #tile.schedule<dependent_launch = 1>, threads = 128 : i64}/' %s | tk-opt -tile-to-ptx=target=sm_90a | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=WAIT
// RUN: sed 's/threads = 128 : i64}/schedule = #tile.schedule<dependent_launch = 1>, threads = 128 : i64}/' %s | tk-opt -tile-to-ptx=target=sm_80 | FileCheck %s --check-prefix=NONE

// With dependent launch on for every kernel, on sm_90a and
// sm_100a the kernel signals and waits before its first global access (the
// load of x); sm_80 has no griddepcontrol, and by default it is off. A
// kernel whose schedule asks (dependent_launch = 1) gets it without the
// option, where the target has it.
// WAIT: griddepcontrol.launch_dependents;
// WAIT-NEXT: griddepcontrol.wait;
// WAIT-NOT: griddepcontrol
// WAIT: ld.global
// NONE-NOT: griddepcontrol
// NONE-NOT: tk.dependent_launch
tile.kernel @k(%x: memref<?x512xf32> {tile.align = 16 : i64}, %out: memref<?x512xf32> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %x, %c0 : memref<?x512xf32>
  %n = arith.ceildivui %m, %c8 : index
  tile.grid (%bm) in (%n) {
    %r = arith.muli %bm, %c8 : index
    %t = tile.load %x[%r, %c0] : memref<?x512xf32> -> !tile.frag<8x512xf32>
    tile.store %t, %out[%r, %c0] : !tile.frag<8x512xf32>, memref<?x512xf32>
  }
  tile.return
}
