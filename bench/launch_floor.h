//===- launch_floor.h - the time of an empty kernel, the small operators' floor ===//
#pragma once

#include "checks/gpu_session.h"
#include "tk/tk.h"

namespace tk::bench {

/// Median microseconds of launching a kernel that does nothing (one block
/// of 32 threads), timed as the benchmark rows are (GpuSession::medianMs):
/// what no operator can go below, beside which the small ones are judged.
/// Negative when the launch fails.
double emptyKernelUs(checks::GpuSession &gpu, tk_context ctx);

} // namespace tk::bench
