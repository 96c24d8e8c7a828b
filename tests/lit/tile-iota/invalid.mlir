// RUN: tk-opt %s -split-input-file -verify-diagnostics

func.func @dim_out_of_range() {
  // expected-error @+1 {{dim 2 out of range for rank 2}}
  %c = tile.iota {dim = 2 : i64} : !tile.frag<4x64xi32>
  return
}

// -----

func.func @float_coordinates() {
  // expected-error @+1 {{coordinates are i32 or i64, got 'f32'}}
  %c = tile.iota {dim = 0 : i64} : !tile.frag<4x64xf32>
  return
}
