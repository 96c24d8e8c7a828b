//===- CompileOptions.cpp - the options that change code, and PTX headers -===//
//
// Plain C++ (no MLIR): the runtime reads these to key and load kernels,
// also in a library that only loads bundled ones.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Target/CompileOptions.h"

#include <algorithm>
#include <cstdlib>

namespace tk::compiler {

CompileOptions CompileOptions::fromEnvironment() {
  CompileOptions o;
  if (const char *dir = std::getenv("TK_DUMP_IR"))
    o.dumpIrDir = dir;
  if (const char *p = std::getenv("TK_PRINT_KERNEL_SOURCE"))
    o.printKernelSource = std::string(p) == "1";
  if (const char *r = std::getenv("TK_REMARKS"))
    o.remarks = std::string(r) == "1";
  if (const char *t = std::getenv("TK_PASS_TIMING"))
    o.passTiming = std::string(t) == "1";
  if (const char *a = std::getenv("TK_ABLATE")) {
    std::string list = a;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(',', start);
      if (end == std::string::npos)
        end = list.size();
      if (end > start)
        o.ablate.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char *m = std::getenv("TK_MIN_BLOCKS_PER_SM"))
    o.minBlocksPerSm = std::atoll(m);
  if (const char *e = std::getenv("TK_COPY_ENGINE"); e && *e)
    o.copyEngine = e;
  if (const char *g = std::getenv("TK_LOGISTIC_GUARD"))
    o.logisticGuard = std::atoll(g);
  if (const char *s = std::getenv("TK_SWIZZLE_BYTES"); s && *s)
    o.swizzleBytes = std::atoll(s);
  return o;
}

const std::vector<std::string> &CompileOptions::ablations() {
  static const std::vector<std::string> names = {"vectorize",         "fp8-hardware",     "pipeline",
                                                 "swizzle",           "layout-inference", "fusion",
                                                 "loop-thread-index", "logistic-division"};
  return names;
}

std::string CompileOptions::problem(const Target &target) const {
  for (const std::string &a : ablate)
    if (std::find(ablations().begin(), ablations().end(), a) == ablations().end()) {
      std::string known;
      for (const std::string &k : ablations())
        known += (known.empty() ? " " : ", ") + k;
      return "TK_ABLATE: unknown pass '" + a + "' (known:" + known + ")";
    }
  if (copyEngine != "cp.async" && copyEngine != "bulk")
    return "TK_COPY_ENGINE must be cp.async or bulk, got '" + copyEngine + "'";
  if (copyEngine == "bulk" && target.computeCapability < 90)
    return "TK_COPY_ENGINE=bulk needs sm_90a or newer (the bulk copy engine and mbarrier transactions); the "
           "target is " +
           target.name;
  if (logisticGuard < 0 || logisticGuard > 64 || (logisticGuard & (logisticGuard - 1)))
    return "TK_LOGISTIC_GUARD must be a power of two from 1 to 64 (0: all of a thread's values), got " +
           std::to_string(logisticGuard);
  if (swizzleBytes != 0 && swizzleBytes != 1 && swizzleBytes != 2 && swizzleBytes != 4)
    return "TK_SWIZZLE_BYTES must be 1, 2 or 4 (0 or unset: the default), got " + std::to_string(swizzleBytes);
  if (minBlocksPerSm < 0 || minBlocksPerSm > 32)
    return "TK_MIN_BLOCKS_PER_SM must be 0 to 32, got " + std::to_string(minBlocksPerSm);
  return "";
}

std::string CompileOptions::cacheTag() const {
  std::string tag;
  for (const std::string &a : ablate)
    tag += (tag.empty() ? "ablate=" : ",") + a;
  auto add = [&](const std::string &part) { tag += (tag.empty() ? "" : ";") + part; };
  if (minBlocksPerSm > 0)
    add("minblocks=" + std::to_string(minBlocksPerSm));
  if (copyEngine != "cp.async")
    add("engine=" + copyEngine);
  if (logisticGuard > 0)
    add("lguard=" + std::to_string(logisticGuard));
  if (swizzleBytes > 0)
    add("swizzlebytes=" + std::to_string(swizzleBytes));
  if (readonlyLoads)
    add("readonly");
  if (dependentLaunch)
    add("pdl");
  return tag;
}

/// Where the header line starting with `line` ends (npos: none). The header
/// lines come first; the PTX proper starts with LLVM's comments.
static size_t headerLine(const std::string &ptx, const std::string &line) {
  for (size_t at = 0; ptx.compare(at, 3, "// ") == 0;) {
    if (ptx.compare(at, line.size(), line) == 0)
      return at + line.size();
    size_t end = ptx.find('\n', at);
    if (end == std::string::npos)
      break;
    at = end + 1;
  }
  return std::string::npos;
}

int64_t dynamicSharedBytes(const std::string &ptx, const std::string &kernel) {
  size_t at = headerLine(ptx, kDynamicSharedMemoryHeader + kernel + " ");
  return at == std::string::npos ? 0 : std::atoll(ptx.c_str() + at);
}

bool dependentLaunch(const std::string &ptx, const std::string &kernel) {
  return headerLine(ptx, kDependentLaunchHeader + kernel + "\n") != std::string::npos;
}

} // namespace tk::compiler
