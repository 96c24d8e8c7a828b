//===- output_directory.h - the directory a compile command writes into --===//
#pragma once

#include <string>

namespace tk::tools {

/// Makes `dir` and its parents (mkdir -p); false, with a message on stderr
/// naming `command`, when it is not a directory afterwards. `tk compile`,
/// `tk bundle` and the kernel authors' toolMain write their files there.
bool makeDirectory(const std::string &command, const std::string &dir);

} // namespace tk::tools
