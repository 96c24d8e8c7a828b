// The Engram gate trained as a layer on a GPU: tk's gradients against fp64
// finite differences (tests/kernels/engram_layer.h). Skips visibly without a
// device.
#include "tests/kernels/engram_layer.h"
#include "tests/kernels/gpu_suite.h"

namespace {
class EngramLayerGpu : public GpuSuite<EngramLayerGpu> {};

TEST_F(EngramLayerGpu, GradientsMatchFiniteDifferences) {
  tk::checks::GpuSession::Scope scope(*session);
  tk::test::checkEngramLayerGradients(session);
}
} // namespace
