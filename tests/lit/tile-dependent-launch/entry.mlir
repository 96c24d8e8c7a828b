// RUN: tk-opt %s -tile-dependent-launch | FileCheck %s

// Every kernel starts by letting the next grid launch, then waits for the one
// before it, ahead of any other work; device functions that are not kernels
// are left alone, and the module names the kernels for the runtime.
// CHECK: module attributes {gpu.container_module, tk.dependent_launch = ["first", "second"]}
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
    gpu.func @second(%a: memref<4xf32>) kernel {
      %f = arith.constant 1.0 : f32
      %c0 = arith.constant 0 : index
      memref.store %f, %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
