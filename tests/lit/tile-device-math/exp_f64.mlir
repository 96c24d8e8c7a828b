// RUN: tk-opt %s -tile-device-math -verify-diagnostics

// Only f32 exp has a device form (CUDA's expf); anything else is an error,
// not a libdevice call.
func.func @exp64(%x: f64) -> f64 {
  // expected-error @+1 {{on the GPU only f32 exp is lowered (as CUDA's expf), got 'f64'}}
  %e = math.exp %x : f64
  return %e : f64
}
