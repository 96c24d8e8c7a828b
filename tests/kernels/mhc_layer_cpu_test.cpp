// One mHC sublayer trained as a layer on the CPU path: tk's gradients, with
// the fused residual-gradient protocol, against fp64 finite differences
// (tests/kernels/mhc_layer.h).
#include "tests/kernels/mhc_layer.h"

TEST(MhcLayerCpu, GradientsMatchFiniteDifferences) { tk::test::checkMhcLayerGradients(nullptr); }
