//===- parallel_slices.h - a check's host work over the host's cores ------===//
//
// Large GPU cases spend minutes of host time drawing inputs and computing
// references on one core. forSlices splits [0, count) into fixed slices and
// runs them on the host's cores; the slices, not the threads, decide what
// each one draws, so a case's inputs do not depend on the core count.
// parallelRows splits by cores instead, for work whose split does not matter.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tk::checks {

/// body(begin, end, slice) for each slice [slice * per, min(count, (slice + 1) * per)). An exception from a body
/// (bad_alloc, say) stops the handing out of slices and is rethrown here once every thread has joined, so that a
/// case's failure is reported as it was when the work ran on one thread.
template <typename Body> void forSlices(int64_t count, int64_t per, Body body) {
  const int64_t slices = count > 0 ? (count + per - 1) / per : 0;
  const int64_t threads = std::min<int64_t>(slices, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto work = [&] {
    try {
      for (int64_t s = next++; s < slices; s = next++)
        body(s * per, std::min(count, (s + 1) * per), s);
    } catch (...) {
      next = slices;
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure)
        failure = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  try {
    for (int64_t t = 1; t < threads; ++t)
      workers.emplace_back(work);
  } catch (const std::system_error &) { // no more threads: the ones started and this one do the rest
  }
  work();
  for (std::thread &w : workers)
    w.join();
  if (failure)
    std::rethrow_exception(failure);
}

/// fn(begin, end) over [0, n) in about one part per core (parts of at least 64): for work whose result does not
/// depend on how it is split (references computed row by row), not for draws.
inline void parallelRows(int64_t n, const std::function<void(int64_t, int64_t)> &fn) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  forSlices(n, std::max<int64_t>(64, (n + cores - 1) / cores),
            [&](int64_t begin, int64_t end, int64_t) { fn(begin, end); });
}

} // namespace tk::checks
