//===- InputLimits.h - what tk-opt refuses before parsing -----------------===//
//
// MLIR's parser recurses once per level of nesting (regions, parentheses,
// brackets, type and attribute parameters), so a deep enough input overflows
// its stack (5,000 nested regions do on an 8 MiB stack). tk-opt and the
// fuzzer measure the nesting of the text first and refuse deeper inputs with
// a diagnostic. (Fragment sizes are bounded by the type verifier.)
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

namespace tk::compiler {

/// The deepest nesting tk-opt parses; deeper inputs are refused.
constexpr int kMaxNestingDepth = 512;

/// Succeeds when no point of `buffer` lies more than kMaxNestingDepth
/// brackets deep ({, (, [ and <, outside string literals and // comments);
/// else reports an error at the first point that does through `sourceMgr`.
bool checkNestingDepth(llvm::SourceMgr &sourceMgr, unsigned bufferId);

} // namespace tk::compiler
