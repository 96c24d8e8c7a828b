//===- baselines.h - the peers' H200 measurements beside tk's rows --------===//
//
// ../shared/baselines/torch-h200.json holds what the peers measured on the
// H200 (the copy ceiling, torch eager and torch.compile per operator). `tk
// bench` prints those rows beside its own: the tk row each baseline stands
// for, tk's time there, the peers' times and the ratios. The live peer table
// (bench/peers, the same rows timed in the same run) is docs/performance.md.
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tk::bench {

struct BaselineRow {
  std::string op, impl; ///< e.g. "per_token_cast 32768x7168", "compile"
  double us = 0, gbps = 0;
};

struct Baselines {
  std::string path;  ///< the file read ("" when none was found)
  std::string error; ///< why nothing was read ("" when read)
  std::string device, torch;
  double copyGbps = 0;
  std::vector<BaselineRow> rows;
};

/// Reads `path`, or when empty the first of $TK_BASELINES,
/// ../shared/baselines/torch-h200.json, shared/baselines/torch-h200.json and
/// bench/baselines/torch-h200.json (its copy in this repository; relative to
/// the working directory) that exists.
Baselines loadBaselines(const std::string &path);

/// One tk row as measured: what the baselines are matched against.
struct MeasuredRow {
  std::string op, shape, variant;
  double us = 0;
};

/// The tk row a baseline op stands for: op, shape and variant of `tk bench`'s
/// table, or an empty op with the reason there is none.
struct BaselineMatch {
  std::string op, shape, variant, why;
};
BaselineMatch matchBaseline(const std::string &baselineOp);

/// The baseline section of `tk bench`'s output: one line per baseline op with
/// tk's time on its row (or why there is none) and the peers' times.
std::string formatBaselines(const Baselines &b, const std::vector<MeasuredRow> &measured, double copyGbps);

} // namespace tk::bench
