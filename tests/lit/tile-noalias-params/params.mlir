// RUN: tk-opt %s -tile-noalias-params | FileCheck %s

// A kernel's used pointer parameters become noalias; the unused ones (a
// memref's allocated pointer), other parameters and non-kernel functions stay
// as they were.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias})
// CHECK-LABEL: llvm.func @helper(
// CHECK-SAME: %{{.*}}: !llvm.ptr)
gpu.module @m {
  llvm.func @k(%xa: !llvm.ptr, %x: !llvm.ptr, %n: i64, %ya: !llvm.ptr, %y: !llvm.ptr) attributes {nvvm.kernel} {
    %v = llvm.load %x : !llvm.ptr -> f32
    llvm.store %v, %y : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @helper(%p: !llvm.ptr) {
    %v = llvm.load %p : !llvm.ptr -> f32
    llvm.store %v, %p : f32, !llvm.ptr
    llvm.return
  }
}
