//===- first_call.h - `tk bench --first-call`: a new process's first call -===//
//
// What a serving process pays the first time it calls an operator: the
// compiler's start, the DSL, the PTX (compiled, or read from the disk cache)
// and the module load (the driver's JIT of the PTX, or a cached cubin). Each
// operator runs in fresh processes of `tk` sharing one new cache directory:
// cold (empty cache), warm (PTX and cubins cached), and warm without the
// cubins (PTX only, as before cubins were kept). A process times its first
// call of the operator's first small case against its second, identical,
// call: the difference is the first call's cost.
//===----------------------------------------------------------------------===//
#pragma once

#include "bench/bench_cases.h"

#include <string>

namespace tk::bench {

/// The parent: one row per operator (or those of options.only). Returns a
/// process exit code (1 when a target is missed: warm <= 5 ms, cold <= 100
/// ms per kernel).
/// With `bundle` (a directory `tk bundle` made), each process reads a copy
/// of it instead: one row per operator of what a deployment pays.
int runFirstCall(const CaseOptions &options, const std::string &bundle = "");

/// The child (`tk bench --first-call-child OP`): prints one line of
/// measurements for the operator in this process.
int runFirstCallChild(const std::string &op);

} // namespace tk::bench
