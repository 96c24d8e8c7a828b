//===- CApi.cpp - the operator-independent part of tk.h -------------------===//
#include "tk/compiler/Version.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"

#include <new>

namespace tk::runtime {

static thread_local std::string lastError;

tk_status report(const Status &s) {
  lastError = s.isOk() ? std::string() : s.message();
  return s.code();
}

} // namespace tk::runtime

using namespace tk::runtime;

extern "C" {

const char *tk_last_error(void) { return lastError.c_str(); }

const char *tk_status_string(tk_status status) {
  switch (status) {
  case TK_SUCCESS: return "success";
  case TK_ERROR_INVALID_ARGUMENT: return "invalid argument";
  case TK_ERROR_UNSUPPORTED: return "unsupported";
  case TK_ERROR_NO_DRIVER: return "no CUDA driver";
  case TK_ERROR_NO_DEVICE: return "no usable CUDA device";
  case TK_ERROR_COMPILE: return "compilation failed";
  case TK_ERROR_LAUNCH: return "launch failed";
  case TK_ERROR_INTERNAL: return "internal error";
  case TK_ERROR_OUT_OF_MEMORY: return "out of memory";
  case TK_ERROR_INVALID_DATA: return "invalid data";
  }
  return "unknown status";
}

const char *tk_version(void) {
  static const std::string v = std::string(tk::compiler::version()) + " (commit " + tk::compiler::commit() + ")";
  return v.c_str();
}

// tk_context_create is the kernels layer's (kernels/context_create.cpp): it
// checks TK_SCHEDULE against the operators' schedules.

tk_status tk_context_destroy(tk_context ctx) {
  delete ctx;
  return report(Status::ok());
}

tk_status tk_set_num_sms(tk_context ctx, int32_t num_sms) {
  if (!ctx)
    return report(Status::invalid("tk_set_num_sms: ctx is null"));
  if (num_sms < 0)
    return report(Status::invalid("tk_set_num_sms: num_sms must be 0 (the device's count) or positive, got " +
                                  std::to_string(num_sms)));
  if (Status s = ctx->checkNumSms(num_sms); !s.isOk())
    return report(s);
  ctx->numSms = num_sms;
  return report(Status::ok());
}

tk_status tk_set_input_checks(tk_context ctx, uint32_t checks) {
  if (!ctx)
    return report(Status::invalid("tk_set_input_checks: ctx is null"));
  if (checks & ~uint32_t(TK_CHECK_INDICES | TK_CHECK_FINITE))
    return report(Status::invalid("tk_set_input_checks: unknown flags " + std::to_string(checks) +
                                  " (TK_CHECK_INDICES = 1, TK_CHECK_FINITE = 2)"));
  ctx->inputChecks = checks;
  return report(Status::ok());
}

tk_status tk_get_input_checks(tk_context ctx, uint32_t *checks) {
  if (!ctx || !checks)
    return report(Status::invalid(std::string("tk_get_input_checks: ") + (ctx ? "checks" : "ctx") + " is null"));
  *checks = ctx->inputChecks;
  return report(Status::ok());
}

tk_status tk_get_num_sms(tk_context ctx, int32_t *num_sms) {
  if (!ctx || !num_sms)
    return report(Status::invalid(std::string("tk_get_num_sms: ") + (ctx ? "num_sms" : "ctx") + " is null"));
  const int sms = ctx->numSms.load();
  *num_sms = sms ? sms : ctx->target ? ctx->device.smCount : 0;
  return report(Status::ok());
}

} // extern "C"
