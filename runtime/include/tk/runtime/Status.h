//===- Status.h - errors with messages, and the C API's last error --------===//
#pragma once

#include "tk/tk.h"

#include <string>

namespace tk::runtime {

/// A tk_status with its message. Functions return Status::ok() or an error.
class Status {
public:
  Status() = default;
  Status(tk_status code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }
  static Status invalid(std::string m) { return {TK_ERROR_INVALID_ARGUMENT, std::move(m)}; }
  static Status unsupported(std::string m) { return {TK_ERROR_UNSUPPORTED, std::move(m)}; }

  bool isOk() const { return code_ == TK_SUCCESS; }
  tk_status code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  tk_status code_ = TK_SUCCESS;
  std::string message_;
};

/// Records `s` as the calling thread's last error (cleared on success) and
/// returns its code: the one exit path of every C API function.
tk_status report(const Status &s);

} // namespace tk::runtime
