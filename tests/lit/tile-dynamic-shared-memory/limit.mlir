// RUN: tk-opt %s -tile-dynamic-shared-memory="max-bytes=65536 target=sm_test" -verify-diagnostics

// Past the target's limit: an error naming the kernel, its total and the
// limit, with a note at each buffer.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+3 {{kernel 'too_big' needs 65552 bytes of shared memory per block; sm_test allows at most 65536 (use smaller tiles or fewer pipeline stages)}}
    // expected-note @+2 {{a buffer of f32 [16384] here}}
    // expected-note @+2 {{a buffer of f32 [4] here}}
    gpu.func @too_big(%i: index) workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
                                           %b : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
