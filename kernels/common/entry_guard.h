//===- entry_guard.h - the guard every C entry point runs its body in -----===//
#pragma once

#include "tk/runtime/CallTensors.h"
#include "tk/runtime/Status.h"

#include <initializer_list>

namespace tk::kernels {

using runtime::NamedTensor;

/// runtime::guardEntry, with the call's tensors declared (CallTensors.h):
/// once the body has validated its arguments, its first kernel checks that
/// no output overlaps another tensor, and nothing runs when one does.
template <typename Body> tk_status guardCall(const char *entry, std::initializer_list<NamedTensor> inputs,
                                             std::initializer_list<NamedTensor> outputs, Body &&body) noexcept {
  return runtime::guardEntry(entry, [&] {
    runtime::CallTensors call(entry, inputs, outputs);
    return body();
  });
}

} // namespace tk::kernels
