// RUN: tk-opt %s -tile-dependent-launch=every=true | FileCheck %s
// RUN: tk-opt %s -tile-dependent-launch | FileCheck %s --check-prefix=MARKED
// RUN: tk-opt %s -tile-dependent-launch=supported=false | FileCheck %s --check-prefix=UNSUPPORTED

// Every kernel (with `every`) starts by letting the next grid launch, then
// waits for the one before it, ahead of any other work; device functions that
// are not kernels are left alone, and the module names the kernels for the
// runtime. The marks never stay.
// CHECK: module attributes {gpu.container_module, tk.dependent_launch = ["first", "second", "third"]}
// CHECK-LABEL: gpu.func @first
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.load
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: griddepcontrol
// CHECK-LABEL: gpu.func @second
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: arith.constant
// CHECK-LABEL: gpu.func @third
// CHECK-NOT: tk.dependent_launch
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents

// By default only the kernel whose schedule asked (marked) changes.
// MARKED: module attributes {gpu.container_module, tk.dependent_launch = ["second", "third"]}
// MARKED-LABEL: gpu.func @first
// MARKED-NOT: griddepcontrol
// MARKED-LABEL: gpu.func @second
// MARKED-NOT: tk.dependent_launch
// MARKED-NEXT: nvvm.griddepcontrol launch_dependents
// MARKED-NEXT: nvvm.griddepcontrol wait
// Asked with 2: no signal (each block's end is one), only the wait.
// MARKED-LABEL: gpu.func @third
// MARKED-NOT: tk.dependent_launch
// MARKED-NEXT: nvvm.griddepcontrol wait
// MARKED-NEXT: gpu.return

// A target without griddepcontrol: no kernel changes, and the mark goes.
// UNSUPPORTED-NOT: griddepcontrol
// UNSUPPORTED-NOT: tk.dependent_launch
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @first(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xf32>
      memref.store %v, %b[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @helper(%a: memref<4xf32>) {
      gpu.return
    }
    gpu.func @second(%a: memref<4xf32>) kernel attributes {tk.dependent_launch = 1 : i64} {
      %f = arith.constant 1.0 : f32
      %c0 = arith.constant 0 : index
      memref.store %f, %a[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @third(%a: memref<4xf32>) kernel attributes {tk.dependent_launch = 2 : i64} {
      gpu.return
    }
  }
}
