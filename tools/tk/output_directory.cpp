//===- output_directory.cpp -------------------------------------------------===//
#include "tools/tk/output_directory.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace tk::tools {

bool makeDirectory(const std::string &command, const std::string &dir) {
  std::error_code error, probe;
  std::filesystem::create_directories(dir, error);
  if (std::filesystem::is_directory(dir, probe))
    return true;
  std::fprintf(stderr, "%s: cannot make the directory '%s'%s%s\n", command.c_str(), dir.c_str(), error ? ": " : "",
               error ? error.message().c_str() : "");
  return false;
}

} // namespace tk::tools
