//===- Version.h - the compiler's identity --------------------------------===//
#pragma once

namespace tk::compiler {
const char *version(); ///< "0.1.0"
const char *commit();  ///< git commit the build was configured at ("-dirty" with local changes)
/// What compiled code depends on besides its IR and options: the version, a
/// hash of the compiler's sources at build time and the LLVM version. Part
/// of every disk cache key.
const char *buildId();
/// A hash of the shipped kernels' and the DSL's sources (and the build id):
/// a named program's identity in the disk index, the same in every binary
/// built from these sources.
const char *programsId();
} // namespace tk::compiler
