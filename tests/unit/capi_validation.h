// What the entry points' argument-check tests share: descriptors of device
// tensors that are never touched (the checks fail before any launch), and an
// expectation on a status and the message tk_last_error() gives.
#pragma once

#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tk::validation_test {

/// A device tensor (row-major unless `strides`) over a 16-byte-aligned
/// placeholder no call may read.
inline tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  alignas(16) static char placeholder[16];
  return tk::checks::deviceTensor(placeholder, dtype, std::move(shape), std::move(strides));
}

/// `got` is `want` and tk_last_error() contains `msg`.
inline void expect(tk_status got, tk_status want, const std::string &msg) {
  EXPECT_EQ(got, want) << tk_last_error();
  EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
}

} // namespace tk::validation_test
