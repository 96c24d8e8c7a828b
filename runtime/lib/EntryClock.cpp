//===- EntryClock.cpp - time spent inside tk's C entry points -------------===//
#include "tk/runtime/EntryClock.h"

#include <atomic>
#include <chrono>

namespace tk::runtime {

namespace {
std::atomic<long long> totalNs{0};
thread_local int depth = 0;

long long nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

double entryMs() { return totalNs.load(std::memory_order_relaxed) / 1e6; }

EntryTimer::EntryTimer() {
  if (depth++ == 0)
    startNs_ = nowNs();
}

EntryTimer::~EntryTimer() {
  --depth;
  if (startNs_ >= 0)
    totalNs.fetch_add(nowNs() - startNs_, std::memory_order_relaxed);
}

} // namespace tk::runtime
