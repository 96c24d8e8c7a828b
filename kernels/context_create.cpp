//===- context_create.cpp - tk_context_create-----------------------------===//
//
// Here rather than in the runtime because a context's TK_SCHEDULE is checked
// against the operators' declared schedules when it is made: a misspelled
// operator or field fails now, not at some later call.
//===----------------------------------------------------------------------===//
#include "kernels/common/operator_schedule.h"
#include "tk/tk.h"

#include <new>

using tk::runtime::Status;

static tk_status tk_context_create_unguarded(tk_context *ctx) {
  if (!ctx)
    return tk::runtime::report(Status::invalid("tk_context_create: ctx is null"));
  *ctx = new (std::nothrow) tk_context_s();
  if (!*ctx)
    return tk::runtime::report({TK_ERROR_OUT_OF_MEMORY, "tk_context_create: out of host memory"});
  if (Status s = tk::kernels::checkScheduleOverrides((*ctx)->schedules); !s.isOk()) {
    delete *ctx;
    *ctx = nullptr;
    return tk::runtime::report(s);
  }
  return tk::runtime::report(Status::ok());
}

extern "C" tk_status tk_context_create(tk_context *ctx) {
  return tk::runtime::guardEntry("tk_context_create", [&] { return tk_context_create_unguarded(ctx); });
}
