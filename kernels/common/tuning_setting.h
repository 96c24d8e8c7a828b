//===- tuning_setting.h - tuning settings read from the environment -------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tk::kernels {

/// Shared memory a kernel's pipeline buffers may take: the rest of the 48 KB
/// of static shared memory is left to its transpose and reduction buffers.
constexpr int64_t kPipelineSharedBytes = 40 * 1024;

/// A setting of sizes joined by 'x' (ROWSxCOLSxTHREADS, STAGESxTILES, ...)
/// as read from the environment: `text` as set ("" when unset or empty) and
/// its integers.
struct SizesSetting {
  std::string text;
  std::vector<int64_t> values;
  /// "VAR 'text': " + `why`, for a value of the right form that does not fit.
  std::string unusable(const char *var, const std::string &why) const;
};

/// Reads environment variable `var` as non-negative integers joined by 'x',
/// as many as `form` (e.g. "ROWSxCOLSxTHREADS") names. Unset or empty: ""
/// and `setting.text` empty; malformed: an error naming `var` and `form`.
std::string readSizesSetting(const char *var, const char *form, SizesSetting &setting);

/// A power of two from `lo` to `hi` (thread counts, tile sizes).
bool isPowerOfTwoIn(int64_t v, int64_t lo, int64_t hi);

/// Reads the pipeline setting in environment variable `var` (a tuning
/// experiment): STAGESxTILES with 1 to 8 stages and 1 to 64 tiles per CTA,
/// or 0x0 for none (0 stages, 1 tile). STAGES is a maximum: the result has
/// no more stages than kPipelineSharedBytes holds at `stageBytes` each.
/// Unset or empty: "" and nothing changes. Otherwise "" with `stages` and
/// `tiles` set, or an error that names `var` (malformed, out of range, or
/// one stage larger than kPipelineSharedBytes).
std::string readPipelineSetting(const char *var, int64_t stageBytes, int64_t &stages, int64_t &tiles);

/// Reads the integer setting in environment variable `var` (a tuning
/// experiment), `lo` to `hi` `what` (e.g. "blocks per SM"). Unset or empty:
/// "" and `value` unchanged; otherwise "" with `value` set, or an error that
/// names `var`.
std::string readIntSetting(const char *var, int64_t lo, int64_t hi, const char *what, int64_t &value);

/// readIntSetting for a power of two from `lo` to `hi` (threads, bytes,
/// rows per thread).
std::string readPowerOfTwoSetting(const char *var, int64_t lo, int64_t hi, const char *what, int64_t &value);

} // namespace tk::kernels
