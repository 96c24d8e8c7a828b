// RUN: tk-opt %s -split-input-file -verify-diagnostics

func.func @inner_sizes_differ(%a: !tile.frag<16x32xf32>, %b: !tile.frag<16x8xf32>) {
  // expected-error @+1 {{needs the lhs's columns to be the rhs's rows}}
  %c = tile.dot %a, %b : !tile.frag<16x32xf32>, !tile.frag<16x8xf32> -> !tile.frag<16x8xf32>
  return
}

// -----

func.func @transposed_inner_sizes_differ(%a: !tile.frag<16x32xf32>, %b: !tile.frag<8x16xf32>) {
  // expected-error @+1 {{needs the lhs's columns to be the transposed rhs's columns}}
  %c = tile.dot %a, %b {rhs_transposed} : !tile.frag<16x32xf32>, !tile.frag<8x16xf32> -> !tile.frag<16x8xf32>
  return
}

// -----

func.func @rows_not_a_multiple_of_16(%a: !tile.frag<8x32xf32>, %b: !tile.frag<32x8xf32>) {
  // expected-error @+1 {{needs M a multiple of 16, N of 8 and K of 8, got M = 8, N = 8, K = 32}}
  %c = tile.dot %a, %b : !tile.frag<8x32xf32>, !tile.frag<32x8xf32> -> !tile.frag<8x8xf32>
  return
}

// -----

func.func @bf16_k_a_multiple_of_16(%a: !tile.frag<16x8xbf16>, %b: !tile.frag<8x8xbf16>) {
  // expected-error @+1 {{tensor-core tiles (bf16): needs M a multiple of 16, N of 8 and K of 16}}
  %c = tile.dot %a, %b : !tile.frag<16x8xbf16>, !tile.frag<8x8xbf16> -> !tile.frag<16x8xf32>
  return
}

// -----

func.func @integer_operands(%a: !tile.frag<16x8xi32>, %b: !tile.frag<8x8xi32>) {
  // expected-error @+1 {{takes f32 or bf16 elements}}
  %c = tile.dot %a, %b : !tile.frag<16x8xi32>, !tile.frag<8x8xi32> -> !tile.frag<16x8xf32>
  return
}

// -----

func.func @result_not_f32(%a: !tile.frag<16x8xf32>, %b: !tile.frag<8x8xf32>) {
  // expected-error @+1 {{result must be 16x8xf32}}
  %c = tile.dot %a, %b : !tile.frag<16x8xf32>, !tile.frag<8x8xf32> -> !tile.frag<16x8xbf16>
  return
}

// -----

func.func @accumulator_shape(%a: !tile.frag<16x32xf32>, %b: !tile.frag<32x8xf32>, %z: !tile.frag<16x16xf32>) {
  // expected-error @+1 {{accumulates into a 16x8xf32 fragment, got '!tile.frag<16x16xf32>'}}
  %c = tile.dot %a, %b acc(%z : !tile.frag<16x16xf32>) : !tile.frag<16x32xf32>, !tile.frag<32x8xf32> -> !tile.frag<16x8xf32>
  return
}

// -----

func.func @accumulator_element(%a: !tile.frag<16x32xf32>, %b: !tile.frag<32x8xf32>, %z: !tile.frag<16x8xbf16>) {
  // expected-error @+1 {{accumulates into a 16x8xf32 fragment}}
  %c = tile.dot %a, %b acc(%z : !tile.frag<16x8xbf16>) : !tile.frag<16x32xf32>, !tile.frag<32x8xf32> -> !tile.frag<16x8xf32>
  return
}
