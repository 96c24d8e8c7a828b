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
} // namespace tk::tools
