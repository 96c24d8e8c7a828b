//===- batched_transpose_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (batched_transpose.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/transpose/batched_transpose.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace tk::kernels::transpose {

using namespace tk::dsl;

std::string TransposeConfig::key() const {
  const std::string schedule = transposeSchedule().spec().print(*this);
  return std::string("batched_transpose:R=") + std::to_string(rows) + ",C=" + std::to_string(cols) +
         ",dtype=" + name(dtype) + ",xalign=" + std::to_string(xAlignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

/// A tile that divides the matrix, whose shared buffer stays within 48 KB.
static std::string checkSchedule(const TransposeConfig &c) {
  const int64_t r = c.tileR(), k = c.tileC();
  if (r * k * byteSize(c.dtype) > 32768) // its padded shared buffer stays within 48 KB
    return "a " + std::to_string(r) + " x " + std::to_string(k) + " tile takes " +
           std::to_string(r * k * byteSize(c.dtype)) + " bytes of " + name(c.dtype) + ", over 32768";
  if (c.rows % r || c.cols % k)
    return "a " + std::to_string(r) + " x " + std::to_string(k) + " tile does not divide " + std::to_string(c.rows) +
           " x " + std::to_string(c.cols);
  return "";
}

/// Square and oblong tiles of 64 and 128, with 128 and 256 threads.
static std::vector<std::string> searchSpace(const TransposeConfig &, const compiler::Target &) {
  std::vector<std::string> out;
  for (const char *tile : {"rows=64,cols=64", "rows=128,cols=64", "rows=64,cols=128", "rows=128,cols=128"})
    for (const char *threads : {",threads=128", ",threads=256"})
      out.push_back(std::string(tile) + threads);
  return out;
}

const OperatorSchedule<TransposeConfig> &transposeSchedule() {
  using C = TransposeConfig;
  static const OperatorSchedule<C> schedule(
      "transpose", "tk_transpose, tk_batched_transpose",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows of the CTA's tile of x (dividing its rows)", 16, 256, true, 0}},
          {&C::tileCols, {"cols", "columns of the CTA's tile of x (dividing its columns)", 16, 256, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::transpose
