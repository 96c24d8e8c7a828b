// RUN: tk-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threads per block must be 32 times a power of two (32, 64, 128, 256, 512 or 1024), got 100}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 100 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// Whole warps, but 14 of them: layouts spread over a power of two of warps.
// expected-error @+1 {{threads per block must be 32 times a power of two (32, 64, 128, 256, 512 or 1024), got 448}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 448 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{persistent needs 1 to 32 blocks per SM, got 0}}
  tile.grid (%i) in (%c1) {
  } {persistent = 0 : i64}
  tile.return
}

// -----

// expected-error @+1 {{kernel body must hold exactly one tile.grid, found 0}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    // expected-error @+1 {{group 48 does not divide dimension 1 of size 64}}
    %r = tile.reduce absmax %t {dim = 1 : i64, group = 48 : i64} : !tile.frag<4x64xf32> -> !tile.frag<4x1xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    // expected-error @+1 {{fragment element type 'bf16' does not match memref element type 'f32'}}
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xbf16>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    %b = tile.convert %t : !tile.frag<4x64xf32> -> !tile.frag<4x64xbf16>
    // expected-error @+1 {{conversion to f8E4M3FN is defined from f32 only, got 'bf16'}}
    %q = tile.convert %b : !tile.frag<4x64xbf16> -> !tile.frag<4x64xf8E4M3FN>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf8E4M3FN>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %q = tile.load %x[%c0, %c0] : memref<?x64xf8E4M3FN> -> !tile.frag<4x64xf8E4M3FN>
    // expected-error @+1 {{conversion from f8E4M3FN is defined to f32 only, got 'bf16'}}
    %b = tile.convert %q : !tile.frag<4x64xf8E4M3FN> -> !tile.frag<4x64xbf16>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    // expected-error @+1 {{body must yield exactly one 'f32'}}
    %p = tile.parallel %t : (!tile.frag<4x64xf32>) -> !tile.frag<4x64xf32> {
    ^bb0(%v: f32):
      %i32 = arith.bitcast %v : f32 to i32
      tile.yield %i32 : i32
    }
  }
  tile.return
}

// -----

// expected-error @+1 {{blocked layout lanes must multiply to the warp size 32, got 16}}
func.func private @f(!tile.frag<4x64xf32, #tile.blocked<vec = [1, 4], lanes = [1, 16], warps = [1, 4]>>)

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    // expected-error @+1 {{tile buffers live in shared memory}}
    %b = tile.alloc : memref<4x64xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    // expected-error @+1 {{result must be the input with its last two dimensions swapped}}
    %u = tile.transpose %t : !tile.frag<4x64xf32> -> !tile.frag<4x64xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi8>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xi8> -> !tile.frag<4x64xi8>
    // expected-error @+1 {{with split_last, the memref has one more dimension than the fragment}}
    tile.store %t, %x[%c0, %c0] {split_last = 4 : i64} : !tile.frag<4x64xi8>, memref<?x64xi8>
  }
  tile.return
}

// -----

tile.kernel @k(%idx: memref<?x1xi32>, %w: memref<?x4xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %i = tile.load %idx[%c0, %c0] : memref<?x1xi32> -> !tile.frag<32x1xi32>
    // expected-error @+1 {{gathers from a 1-D tensor, got rank 2}}
    %v = tile.gather %w[%i] : memref<?x4xf32>, !tile.frag<32x1xi32> -> !tile.frag<32x1xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%idx: memref<?x1xf32>, %w: memref<?xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %i = tile.load %idx[%c0, %c0] : memref<?x1xf32> -> !tile.frag<32x1xf32>
    // expected-error @+1 {{index elements must be i32, got 'f32'}}
    %v = tile.gather %w[%i] : memref<?xf32>, !tile.frag<32x1xf32> -> !tile.frag<32x1xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%idx: memref<?x1xi32>, %w: memref<?xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %i = tile.load %idx[%c0, %c0] : memref<?x1xi32> -> !tile.frag<32x1xi32>
    // expected-error @+1 {{the result's element type 'bf16' must be the tensor's, 'f32'}}
    %v = tile.gather %w[%i] : memref<?xf32>, !tile.frag<32x1xi32> -> !tile.frag<32x1xbf16>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xbf16> -> !tile.frag<1x4xbf16>
    // expected-error @+1 {{atomic_add needs integer or f32 elements, got 'bf16'}}
    tile.store %t, %x[%c0, %c0] {atomic_add} : !tile.frag<1x4xbf16>, memref<?x4xbf16>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xf32> -> !tile.frag<1x4xf32>
    // expected-error @+1 {{the mask holds integers (nonzero: write), got 'f32'}}
    tile.store %t, %x[%c0, %c0] mask %t : !tile.frag<1x4xf32>, memref<?x4xf32>, !tile.frag<1x4xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xf32>, %m: memref<?x2xi32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xf32> -> !tile.frag<1x4xf32>
    %k = tile.load %m[%c0, %c0] : memref<?x2xi32> -> !tile.frag<1x2xi32>
    // expected-error @+1 {{the mask has the value's shape}}
    tile.store %t, %x[%c0, %c0] mask %k : !tile.frag<1x4xf32>, memref<?x4xf32>, !tile.frag<1x2xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xi32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xi32> -> !tile.frag<1x4xi32>
    // expected-error @+1 {{a mask does not combine with atomic_add or split_last}}
    tile.store %t, %x[%c0, %c0] mask %t {atomic_add} : !tile.frag<1x4xi32>, memref<?x4xi32>, !tile.frag<1x4xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xf32>, %idx: memref<?x4xi32>, %g: memref<?xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xf32> -> !tile.frag<1x4xf32>
    %i = tile.load %idx[%c0, %c0] : memref<?x4xi32> -> !tile.frag<1x4xi32>
    // expected-error @+1 {{add needs integer elements (a float sum would depend on the order of the blocks), got 'f32'}}
    tile.scatter %t, %g[%i] {add} : !tile.frag<1x4xf32>, memref<?xf32>, !tile.frag<1x4xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xf32>, %idx: memref<?x2xi32>, %g: memref<?xf32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xf32> -> !tile.frag<1x4xf32>
    %i = tile.load %idx[%c0, %c0] : memref<?x2xi32> -> !tile.frag<1x2xi32>
    // expected-error @+1 {{the index fragment has the value's shape}}
    tile.scatter %t, %g[%i] : !tile.frag<1x4xf32>, memref<?xf32>, !tile.frag<1x2xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x4xf32>, %idx: memref<?x4xi32>, %g: memref<?x4xbf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x4xf32> -> !tile.frag<1x4xf32>
    %i = tile.load %idx[%c0, %c0] : memref<?x4xi32> -> !tile.frag<1x4xi32>
    // expected-error @+1 {{the value's element type 'f32' must be the tensor's, 'bf16'}}
    tile.scatter_rows %t, %g[%i, %c0] : !tile.frag<1x4xf32>, memref<?x4xbf16>, !tile.frag<1x4xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{needs 1 to 8 stages, got 9}}
    tile.pipeline %i = %c0 to %c1 {stages = 9 : i64} {
      tile.copy %x[%i, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    tile.pipeline %i = %c0 to %c1 {stages = 2 : i64} {
      %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
      // expected-error @+1 {{in a tile.pipeline must copy into a tile.alloc buffer defined outside it}}
      tile.copy %x[%i, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  tile.return
}

// -----

// A copy whose row comes from a loaded tile cannot be recomputed ahead.
tile.kernel @k(%x: memref<?x64xbf16>, %rows: memref<?x1xindex>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0 to %c1 {stages = 2 : i64} {
      %r = memref.load %rows[%i, %c0] : memref<?x1xindex>
      // expected-error @+1 {{source and indices must be computed from the induction variable and values defined outside the tile.pipeline by side-effect-free ops}}
      tile.copy %x[%r, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0 to %c1 {stages = 2 : i64} {
      // expected-error @+1 {{reads a pipelined buffer before the copy that fills it}}
      %t = tile.load %buf[%c0, %c0] : memref<32x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<32x64xbf16>
      tile.copy %x[%i, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0 to %c1 {stages = 2 : i64} {
      // expected-error @+1 {{buffer is also used outside the tile.pipeline that fills it}}
      tile.copy %x[%i, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    }
    %t = tile.load %buf[%c0, %c0] : memref<32x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<32x64xbf16>
  }
  tile.return
}

// -----

// A copy's row cannot come from a carried value: it is not known ahead.
tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %end = tile.pipeline %i = %c0 to %c1 iter_args(%r = %c0) -> (index) {stages = 2 : i64} {
      // expected-error @+1 {{source and indices must be computed from the induction variable and values defined outside the tile.pipeline by side-effect-free ops}}
      tile.copy %x[%r, %c0], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
      %n = arith.addi %r, %c1 : index
      tile.yield %n : index
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    // expected-error @+1 {{carried value 0 is '!tile.frag<1x64xf32>' on entry; its argument, yield and result must be too}}
    %s = tile.pipeline %i = %c0 to %c1 iter_args(%acc = %t) -> (!tile.frag<1x64xf32>) {stages = 2 : i64} {
      %h = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<1x32xf32>
      tile.yield %h : !tile.frag<1x32xf32>
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<1x64xf32>
    // expected-error @+1 {{body must end in a tile.yield of its 1 carried values}}
    %s = tile.pipeline %i = %c0 to %c1 iter_args(%acc = %t) -> (!tile.frag<1x64xf32>) {stages = 2 : i64} {
      tile.yield
    }
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    // expected-error @+1 {{pending must be 0 to 8 groups, got 9}}
    tile.wait_copies {pending = 9 : i64}
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %bars = tile.alloc : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{arrival count must be 1 to 2^20 - 1, got 0}}
    tile.init_barriers %bars {count = 0 : i64} : memref<2xi64, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xbf16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %bars = tile.alloc : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{a copy that signals an mbarrier must be async}}
    tile.copy %x[%c0, %c0], %buf barrier %bars[%c0] : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has 2 block totals but its body yields 1 values}}
  %a, %b = tile.grid (%i) in (%c1) -> (i64, i64) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    tile.yield %t : !tile.frag<1x64xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{block totals are 32- or 64-bit integers or floats, got 'i16'}}
  %a = tile.grid (%i) in (%c1) -> (i16) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    tile.yield %t : !tile.frag<1x64xi32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi64>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{block total 0 of type 'f32' needs a yielded fragment of integers or floats as wide or narrower, got '!tile.frag<1x64xi64>'}}
  %a = tile.grid (%i) in (%c1) -> (f32) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi64> -> !tile.frag<1x64xi64>
    tile.yield %t : !tile.frag<1x64xi64>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi32>, %n: memref<1xi32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  // expected-error @+1 {{must come after the kernel's tile.grid (it adds a block total once per block)}}
  tile.atomic_add %z, %n[%c0] : i32, memref<1xi32>
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi32>, %n: memref<1xi64>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.grid (%i) in (%c1) -> (i32) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    tile.yield %t : !tile.frag<1x64xi32>
  }
  // expected-error @+1 {{adds a 'i32' into elements of 'i64'}}
  tile.atomic_add %a, %n[%c0] : i32, memref<1xi64>
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<2x64xf32>
    // expected-error @+1 {{changes only the layout: the result must have the input's shape and element type}}
    %r = tile.relayout %t : !tile.frag<2x64xf32> -> !tile.frag<2x64xbf16, #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [2, 1]>>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.frag<2x64xf32, #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [2, 1]>>
    // expected-error @+1 {{needs the result's layout}}
    %r = tile.relayout %t : !tile.frag<2x64xf32, #tile.blocked<vec = [1, 2], lanes = [1, 32], warps = [2, 1]>> -> !tile.frag<2x64xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi8>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi8> -> !tile.frag<1x64xi8>
    %s = tile.load %x[%i, %c0] : memref<?x64xi8> -> !tile.frag<1x64xi8>
    // expected-error @+1 {{takes i8 codes (two per byte) and i32 shifts to f8E4M3FN}}
    %q = tile.e2m1_to_e4m3 %t, %s : !tile.frag<1x64xi8>, !tile.frag<1x64xi8> -> !tile.frag<1x128xf8E4M3FN>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi8>, %y: memref<?x64xi32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%i, %c0] : memref<?x64xi8> -> !tile.frag<1x64xi8>
    %s = tile.load %y[%i, %c0] : memref<?x64xi32> -> !tile.frag<1x64xi32>
    // expected-error @+1 {{the shift and the result must have the codes' shape with twice the last dimension}}
    %q = tile.e2m1_to_e4m3 %t, %s : !tile.frag<1x64xi8>, !tile.frag<1x64xi32> -> !tile.frag<1x128xf8E4M3FN>
  }
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.dim_multiples must be an array<i64> of one positive multiple per dimension of a memref, got array<i64: 1, 0>}}
tile.kernel @k(%x: memref<?x?xf32> {tile.dim_multiples = array<i64: 1, 0>}) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.dim_multiples must be an array<i64> of one positive multiple per dimension of a memref, got array<i64: 4>}}
tile.kernel @k(%x: memref<?x?xf32> {tile.dim_multiples = array<i64: 4>}) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{schedule: max_access_bytes must be 4, 8 or 16 (0: the target's), got 12}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<max_access_bytes = 12>} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{schedule: transpose_rows must be 4, 8 or 16 (0: 4), got 3}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<transpose_rows = 3>} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{schedule: vector_elements must be a power of two or a multiple of 8 from 1 to 64 (0: derived), got 12}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<vector_elements = 12>} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{schedule: min_blocks_per_sm must be 0 to 32 (0: none), got 33}}
tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64, schedule = #tile.schedule<min_blocks_per_sm = 33>} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{argument 0: unknown attribute 'tile.alignment' (tile.align, tile.dim_multiples)}}
tile.kernel @k(%x: memref<?x64xf32> {tile.alignment = 16 : i64}) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

// expected-error @+1 {{argument 0: tile.align must be a power-of-two byte count on a memref, got 12 : i64}}
tile.kernel @k(%x: memref<?x64xf32> {tile.align = 12 : i64}) attributes {threads = 128 : i64} {
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
  }
  tile.return
}

// -----

func.func @silu_of_int(%x: i32) -> i32 {
  // expected-error @+1 {{'tile.silu' op operand #0 must be 32-bit float or vector of 32-bit float values of ranks 1}}
  %y = tile.silu %x : i32
  return %y : i32
}

// -----

tile.kernel @k(%x: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<4x64xf32>
    // expected-error @+1 {{needs i8, i16, i32 or i64 elements, got 'f32'}}
    %s = tile.scan %t {dim = 1 : i64} : !tile.frag<4x64xf32> -> !tile.frag<4x64xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi64>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xi64> -> !tile.frag<4x64xi64>
    // expected-error @+1 {{result must be 'i32' of the input's shape}}
    %s = tile.count_equal %t {dim = 1 : i64} : !tile.frag<4x64xi64> -> !tile.frag<4x64xi64>
  }
  tile.return
}

// -----

tile.kernel @k(%x: memref<?x64xi32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%i) in (%c1) {
    %t = tile.load %x[%c0, %c0] : memref<?x64xi32> -> !tile.frag<4x64xi32>
    // expected-error @+1 {{dim 2 is outside the fragment's 2 dimensions}}
    %s = tile.scan %t {dim = 2 : i64} : !tile.frag<4x64xi32> -> !tile.frag<4x64xi32>
  }
  tile.return
}
