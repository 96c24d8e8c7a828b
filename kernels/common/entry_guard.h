//===- entry_guard.h - the guard every C entry point runs its body in -----===//
#pragma once

#include "tk/runtime/CallTensors.h"
#include "tk/runtime/Status.h"

#include <initializer_list>

namespace tk::kernels {

using runtime::NamedTensor;

/// runtime::guardEntry, with the call's tensors declared (CallTensors.h):
/// once the body has validated its arguments, its first kernel checks that
/// no output overlaps another tensor, and nothing runs when one does (a call
/// that launches nothing checks them before it returns).
template <typename Body> tk_status guardCall(const char *entry, std::initializer_list<NamedTensor> inputs,
                                             std::initializer_list<NamedTensor> outputs, Body &&body) noexcept {
  return runtime::guardEntry(entry, [&] {
    runtime::CallTensors call(entry, inputs, outputs);
    const tk_status s = body();
    // A call that had nothing to launch (no rows) refuses overlapping outputs too: the answer to bad
    // arguments does not depend on the sizes.
    if (s == TK_SUCCESS)
      if (runtime::Status c = runtime::CallTensors::checkIfNothingLaunched(); !c.isOk())
        return runtime::report(c);
    return s;
  });
}

} // namespace tk::kernels
