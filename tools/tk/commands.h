//===- commands.h - the tk subcommands ------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tk::tools {
int cmdList(const std::vector<std::string> &args);
int cmdCompile(const std::vector<std::string> &args);
int cmdBundle(const std::vector<std::string> &args);
int cmdRun(const std::vector<std::string> &args);
int cmdCheck(const std::vector<std::string> &args);
int cmdVersion();
int cmdBench(const std::vector<std::string> &args);
int cmdTune(const std::vector<std::string> &args);
/// Makes `dir` and its parents (mkdir -p); false, with a message on stderr
/// naming `command`, when it is not a directory afterwards.
bool makeDirectory(const std::string &command, const std::string &dir);
} // namespace tk::tools
