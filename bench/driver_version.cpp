//===- driver_version.cpp -------------------------------------------------===//
#include "bench/driver_version.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tk::bench {

std::string parseDriverVersion(const std::string &procText) {
  // The first line names the module and its version; later lines name the compiler it was built with.
  std::string first = procText.substr(0, procText.find('\n'));
  std::smatch m;
  if (std::regex_search(first, m, std::regex(R"(Kernel Module(?: for [A-Za-z0-9_]+)?\s+([0-9]+(?:\.[0-9]+)+))")))
    return m[1];
  return "";
}

std::string kernelDriverVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  if (!in)
    return "";
  std::stringstream text;
  text << in.rdbuf();
  return parseDriverVersion(text.str());
}

std::string describeDriver(const std::string &kernelVersion, int apiVersion) {
  const std::string api = "CUDA API " + std::to_string(apiVersion);
  return kernelVersion.empty() ? api : kernelVersion + " (" + api + ")";
}

} // namespace tk::bench
