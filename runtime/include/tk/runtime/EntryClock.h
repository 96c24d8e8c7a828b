//===- EntryClock.h - time spent inside tk's C entry points ---------------===//
//
// `tk bench --first-call` measures what a first call costs the caller: the
// time inside the operator's entry point, not the test's own first-use work
// around it (inputs, references, oracles), which a wall clock around the
// whole check also counted.
//===----------------------------------------------------------------------===//
#pragma once

namespace tk::runtime {

/// Milliseconds this process has spent inside tk's C entry points (the
/// outermost call of each thread; an entry calling another counts once).
double entryMs();

/// Adds the time from its construction to its destruction to entryMs().
class EntryTimer {
public:
  EntryTimer();
  ~EntryTimer();
  EntryTimer(const EntryTimer &) = delete;
  EntryTimer &operator=(const EntryTimer &) = delete;

private:
  long long startNs_ = -1; ///< -1: nested inside another entry
};

} // namespace tk::runtime
