//===- ptxas.cpp ----------------------------------------------------------===//
#include "tools/tk/ptxas.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::tools {

static bool executable(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && (st.st_mode & S_IXUSR);
}

std::string findPtxas() {
  if (const char *env = std::getenv("TK_PTXAS"))
    return executable(env) ? env : "";
  if (const char *path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && executable(dir + "/ptxas"))
        return dir + "/ptxas";
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
  return executable("/usr/local/cuda/bin/ptxas") ? "/usr/local/cuda/bin/ptxas" : "";
}

PtxasReport runPtxas(const std::string &ptxas, const std::string &ptxFile, const std::string &arch,
                     const std::string &cubinFile) {
  PtxasReport r;
  std::string cmd = "'" + ptxas + "' -arch=" + arch + " -v '" + ptxFile + "' -o '" + cubinFile + "' 2>&1";
  FILE *pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    r.error = "could not run " + ptxas;
    return r;
  }
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    out.append(buf.data(), n);
  int rc = pclose(pipe);
  if (rc != 0) {
    r.error = "ptxas failed:\n" + out;
    return r;
  }
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(Used (\d+) registers)")))
    r.registers = std::stoi(m[1]);
  if (std::regex_search(out, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    r.stackBytes = std::stoi(m[1]);
    r.spillStoreBytes = std::stoi(m[2]);
    r.spillLoadBytes = std::stoi(m[3]);
  }
  if (std::regex_search(out, m, std::regex(R"((\d+) bytes smem)")))
    r.sharedBytes = std::stoi(m[1]);
  r.ok = true;
  return r;
}

PtxasReport assemblePtx(const std::string &ptxas, const std::string &ptx, const std::string &arch) {
  char path[] = "/tmp/tk-ptxas-XXXXXX.ptx";
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    PtxasReport r;
    r.error = "no temporary file for the PTX";
    return r;
  }
  close(fd);
  struct Removed {
    const char *path;
    ~Removed() { std::remove(path); }
  } removed{path};
  if (!(std::ofstream(path) << ptx)) {
    PtxasReport r;
    r.error = std::string("could not write the PTX to ") + path;
    return r;
  }
  return runPtxas(ptxas, path, arch);
}

} // namespace tk::tools
