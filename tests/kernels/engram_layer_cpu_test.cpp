// The Engram gate trained as a layer on the CPU path: tk's gradients against
// fp64 finite differences (tests/kernels/engram_layer.h).
#include "tests/kernels/engram_layer.h"

TEST(EngramLayerCpu, GradientsMatchFiniteDifferences) { tk::test::checkEngramLayerGradients(nullptr); }
