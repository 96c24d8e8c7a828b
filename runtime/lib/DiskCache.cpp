//===- DiskCache.cpp ------------------------------------------------------===//
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/JitCache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::runtime {

namespace {
uint64_t fnv1a(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool makeDirs(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') {
      std::string part = path.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  return true;
}
} // namespace

DiskCache DiskCache::fromEnvironment() {
  DiskCache c;
  std::string version = compilerVersion();
  if (version.find("dirty") != std::string::npos || version.find("unknown") != std::string::npos)
    return c;
  std::string dir;
  if (const char *d = std::getenv("TK_CACHE_DIR"))
    dir = d;
  else if (const char *x = std::getenv("XDG_CACHE_HOME"))
    dir = std::string(x) + "/tk";
  else if (const char *h = std::getenv("HOME"))
    dir = std::string(h) + "/.cache/tk";
  if (dir.empty() || !makeDirs(dir))
    return c;
  c.dir_ = dir;
  return c;
}

std::string DiskCache::pathFor(const std::string &key) const {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.ptx", (unsigned long long)fnv1a(key));
  return dir_ + "/" + name;
}

std::optional<std::string> DiskCache::read(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::ifstream in(pathFor(key), std::ios::binary);
  if (!in)
    return std::nullopt;
  // The file starts with its full key: a hash collision is a miss.
  std::string header;
  if (!std::getline(in, header) || header != "// tk cache key: " + key)
    return std::nullopt;
  std::ostringstream body;
  body << in.rdbuf();
  return body.str();
}

void DiskCache::write(const std::string &key, const std::string &ptx) const {
  if (!enabled())
    return;
  std::string path = pathFor(key), tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << "// tk cache key: " << key << "\n" << ptx;
    if (!out) {
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    std::remove(tmp.c_str());
}

} // namespace tk::runtime
