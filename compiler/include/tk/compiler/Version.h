//===- Version.h - the compiler's identity (part of every JIT cache key) --===//
#pragma once

namespace tk::compiler {
const char *version(); ///< "0.1.0"
const char *commit();  ///< git commit the build was configured at
} // namespace tk::compiler
