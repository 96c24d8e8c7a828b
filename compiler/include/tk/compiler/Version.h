//===- Version.h - the compiler's identity --------------------------------===//
#pragma once

namespace tk::compiler {
const char *version(); ///< "0.1.0"
const char *commit();  ///< git commit the build was configured at ("-dirty" with local changes)
/// What compiled code depends on besides its IR and options: the version, a
/// hash of the compiler's sources at build time and the LLVM version. Part
/// of every disk cache key.
const char *buildId();
} // namespace tk::compiler
