//===- Status.h - errors with messages, and the C API's last error --------===//
#pragma once

#include "tk/runtime/EntryClock.h"
#include "tk/tk.h"

#include <exception>
#include <new>
#include <string>

namespace tk::runtime {

/// A tk_status with its message. Functions return Status::ok() or an error.
class Status {
public:
  Status() = default;
  Status(tk_status code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }
  static Status invalid(std::string m) { return {TK_ERROR_INVALID_ARGUMENT, std::move(m)}; }
  /// The values break a precondition only the kernel checks (outputs written).
  static Status invalidData(std::string m) { return {TK_ERROR_INVALID_DATA, std::move(m)}; }
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

/// Runs an entry point's body so that no C++ exception crosses the C
/// boundary: std::bad_alloc (a size whose host buffers cannot be made)
/// becomes TK_ERROR_OUT_OF_MEMORY, any other exception TK_ERROR_INTERNAL,
/// each with the entry point's name in tk_last_error().
template <typename Body> tk_status guardEntry(const char *entry, Body &&body) noexcept {
  EntryTimer timed;
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return report({TK_ERROR_OUT_OF_MEMORY, std::string(entry) + ": out of host memory"});
  } catch (const std::exception &e) {
    return report({TK_ERROR_INTERNAL, std::string(entry) + ": " + e.what()});
  } catch (...) {
    return report({TK_ERROR_INTERNAL, std::string(entry) + ": an unknown C++ exception"});
  }
}

} // namespace tk::runtime
