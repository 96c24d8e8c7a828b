// A context made with TK_SCHEDULE set to an experiment: schedule tests run
// each schedule in a fresh context (a context reads TK_SCHEDULE once).
#pragma once

#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace tk::test {

class ScheduledContext {
public:
  /// `schedule`: TK_SCHEDULE's text ("transpose:rows=128,cols=64").
  explicit ScheduledContext(const std::string &schedule) {
    setenv("TK_SCHEDULE", schedule.c_str(), 1);
    status_ = tk_context_create(&ctx_);
    unsetenv("TK_SCHEDULE");
    EXPECT_EQ(status_, TK_SUCCESS) << schedule << ": " << tk_last_error();
  }
  ~ScheduledContext() {
    if (status_ == TK_SUCCESS)
      tk_context_destroy(ctx_);
  }
  ScheduledContext(const ScheduledContext &) = delete;
  ScheduledContext &operator=(const ScheduledContext &) = delete;
  operator tk_context() const { return ctx_; }

private:
  tk_context ctx_ = nullptr;
  tk_status status_ = TK_SUCCESS;
};

} // namespace tk::test
