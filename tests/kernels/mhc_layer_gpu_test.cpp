// One mHC sublayer trained as a layer on a GPU (tests/kernels/mhc_layer.h).
// Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/mhc_layer.h"

namespace {
class MhcLayerGpu : public GpuSuite<MhcLayerGpu> {};
TEST_F(MhcLayerGpu, GradientsMatchFiniteDifferences) { tk::test::checkMhcLayerGradients(session); }
} // namespace
