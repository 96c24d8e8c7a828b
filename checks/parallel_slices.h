//===- parallel_slices.h - a check's host work over the host's cores ------===//
//
// Large GPU cases spend minutes of host time drawing inputs and computing
// references on one core. forSlices splits [0, count) into fixed slices and
// runs them on the host's cores; the slices, not the threads, decide what
// each one draws, so a case's inputs do not depend on the core count.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace tk::checks {

/// body(begin, end, slice) for each slice [slice * per, min(count, (slice + 1) * per)).
template <typename Body> void forSlices(int64_t count, int64_t per, Body body) {
  const int64_t slices = count > 0 ? (count + per - 1) / per : 0;
  const int64_t threads = std::min<int64_t>(slices, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t s = next++; s < slices; s = next++)
      body(s * per, std::min(count, (s + 1) * per), s);
  };
  std::vector<std::thread> workers;
  for (int64_t t = 1; t < threads; ++t)
    workers.emplace_back(work);
  work();
  for (std::thread &w : workers)
    w.join();
}

} // namespace tk::checks
