// RUN: tk-opt %s -tile-dynamic-shared-memory | FileCheck %s
// RUN: tk-opt %s -tile-dynamic-shared-memory="static-bytes=65616" | FileCheck %s --check-prefix=STATIC

// 64 KB of f32, 3 bf16 (6 bytes) at 65536 and 16 f32 at the next 16-byte
// boundary, 65552: 65616 bytes, past the static 48 KB. Each buffer becomes a
// view of the block's dynamic shared memory at its offset; the kernel's
// attributions go and the module records its total. The small kernel keeps
// its static buffer.

// The block's dynamic shared memory is an external zero-length array (upstream's
// gpu.dynamic_shared_memory declares it internal, which NVPTX demotes to a
// one-byte static variable).
// CHECK: module attributes {gpu.container_module, tk.dynamic_shared_memory = {big = 65616 : i64}}
// CHECK: memref.global "public" @__tk_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: gpu.func @big(%{{.*}}: index) kernel {
// CHECK: %[[G:.*]] = memref.get_global @__tk_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>>
// CHECK: %[[BASE:.*]] = memref.cast %[[G]] : memref<0xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.view %[[BASE]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.view %[[BASE]][%c65536{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[C:.*]] = memref.view %[[BASE]][%c65552{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}]
// CHECK: memref.store %{{.*}}, %[[B]][%{{.*}}]
// CHECK: memref.store %{{.*}}, %[[C]][%{{.*}}]
// CHECK-LABEL: gpu.func @small
// CHECK-SAME: workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-NOT: __tk_dynamic_shared

// STATIC-NOT: tk.dynamic_shared_memory
// STATIC-NOT: __tk_dynamic_shared
// STATIC: gpu.func @big
// STATIC-SAME: workgroup(
// STATIC-NOT: __tk_dynamic_shared

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @big(%i: index) workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
                                       %b : memref<3xbf16, #gpu.address_space<workgroup>>,
                                       %c : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel {
      %f = arith.constant 1.0 : f32
      %h = arith.constant 1.0 : bf16
      memref.store %f, %a[%i] : memref<16384xf32, #gpu.address_space<workgroup>>
      memref.store %h, %b[%i] : memref<3xbf16, #gpu.address_space<workgroup>>
      memref.store %f, %c[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
    gpu.func @small(%i: index) workgroup(%a : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel {
      %f = arith.constant 1.0 : f32
      memref.store %f, %a[%i] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
