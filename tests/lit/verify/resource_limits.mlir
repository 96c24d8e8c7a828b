// RUN: tk-opt %s -split-input-file -verify-diagnostics
// RUN: python3 -c "print('func.func @f() {' + 'scf.execute_region {' * 5000 + '}' * 5000 + '}')" | not tk-opt 2>&1 | FileCheck %s --check-prefix=DEEP

// Resource limits turn runaway inputs into diagnostics instead of a compiler
// that unrolls 2^64 elements (past 6 GB of memory) or a parser that
// overflows its stack.
// DEEP: error: input nests more than 512 levels deep here; tk-opt refuses it

tile.kernel @huge(%x: memref<?x?xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    // expected-error @+1 {{fragment of more than 1048576 elements}}
    %v = tile.load %x[%c0, %c0] : memref<?x?xf32> -> !tile.frag<4294967296x4294967296xf32>
  }
  tile.return
}

// -----

tile.kernel @per_thread(%x: memref<?x?xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    // expected-error @+1 {{holds more than 512 elements per thread of this kernel's 128 threads}}
    %v = tile.load %x[%c0, %c0] : memref<?x?xf32> -> !tile.frag<256x512xf32>
  }
  tile.return
}
