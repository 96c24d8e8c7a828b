// RUN: tk-opt %s -tile-noalias-params | FileCheck %s

// A kernel's used read-only pointer parameters become noalias; the unused
// ones (a memref's allocated pointer), written ones, other parameters and
// non-kernel functions stay as they were.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.readonly}, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-LABEL: llvm.func @helper(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.readonly})
gpu.module @m {
  llvm.func @k(%xa: !llvm.ptr {llvm.readonly}, %x: !llvm.ptr {llvm.readonly}, %n: i64, %ya: !llvm.ptr, %y: !llvm.ptr) attributes {nvvm.kernel} {
    %v = llvm.load %x : !llvm.ptr -> f32
    %w = llvm.load %y : !llvm.ptr -> f32
    %s = llvm.fadd %v, %w : f32
    llvm.store %s, %y : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @helper(%p: !llvm.ptr {llvm.readonly}) {
    %v = llvm.load %p : !llvm.ptr -> f32
    llvm.return
  }
}
