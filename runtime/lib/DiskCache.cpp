//===- DiskCache.cpp ------------------------------------------------------===//
#include "tk/runtime/DiskCache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::runtime {

namespace {

const char *entryMagic(DiskCache::Kind kind) {
  switch (kind) {
  case DiskCache::Kind::Ptx:
    return "tk-ptx 1";
  case DiskCache::Kind::Cubin:
    return "tk-cubin 1";
  case DiskCache::Kind::Index:
    return "tk-index 1";
  }
  return "";
}
/// No PTX tk writes is larger; anything claiming more is not an entry.
constexpr size_t kMaxEntryBytes = 64u << 20;

bool makeDirs(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') {
      std::string part = path.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  return true;
}

/// The whole of a regular file, or nothing: opened without blocking (a FIFO
/// in its place would otherwise wait for a writer forever).
std::optional<std::string> readRegularFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct stat st;
  std::optional<std::string> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= kMaxEntryBytes) {
    std::string bytes((size_t)st.st_size, '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0)
        break;
      got += (size_t)n;
    }
    if (got == bytes.size())
      out = std::move(bytes);
  }
  close(fd);
  return out;
}

} // namespace

DiskCache DiskCache::at(const std::string &dir) {
  DiskCache c;
  if (!dir.empty() && makeDirs(dir))
    c.dir_ = dir;
  return c;
}

DiskCache DiskCache::fromEnvironment() {
  if (const char *d = std::getenv("TK_CACHE_DIR"))
    return at(d);
  if (const char *x = std::getenv("XDG_CACHE_HOME"))
    return at(std::string(x) + "/tk");
  if (const char *h = std::getenv("HOME"))
    return at(std::string(h) + "/.cache/tk");
  return {};
}

std::string DiskCache::pathFor(const std::string &key, Kind kind) const {
  if (kind != Kind::Cubin)
    return dir_ + "/" + key.substr(0, 40) + (kind == Kind::Ptx ? ".ptx" : ".index");
  // "<content key>.<device tag>": the content key's prefix and the tag.
  const size_t dot = key.find('.');
  return dir_ + "/" + key.substr(0, std::min<size_t>(dot, 40)) + (dot == std::string::npos ? "" : key.substr(dot)) +
         ".cubin";
}

std::optional<std::string> DiskCache::read(const std::string &key, Kind kind) const {
  if (!enabled())
    return std::nullopt;
  std::optional<std::string> bytes = readRegularFile(pathFor(key, kind));
  if (!bytes)
    return std::nullopt;
  // "tk-ptx 1 <key> <length> <sha256>\n<bytes>" (tk-cubin for cubins): anything else is a miss.
  size_t eol = bytes->find('\n');
  if (eol == std::string::npos)
    return std::nullopt;
  std::istringstream header(bytes->substr(0, eol));
  std::string magic, version, storedKey, digest;
  size_t length = 0;
  if (!(header >> magic >> version >> storedKey >> length >> digest) || magic + " " + version != entryMagic(kind) ||
      storedKey != key || length != bytes->size() - eol - 1)
    return std::nullopt;
  std::string body = bytes->substr(eol + 1);
  if (sha256Hex(body) != digest)
    return std::nullopt;
  return body;
}

std::vector<std::string> DiskCache::keys(Kind kind) const {
  std::vector<std::string> out;
  const std::string suffix = kind == Kind::Ptx ? ".ptx" : kind == Kind::Index ? ".index" : ".cubin";
  DIR *d = enabled() ? opendir(dir_.c_str()) : nullptr;
  if (!d)
    return out;
  while (dirent *e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    // The key is in the entry's header ("tk-ptx 1 <key> ..."); read() then checks the whole entry.
    std::optional<std::string> bytes = readRegularFile(dir_ + "/" + name);
    if (!bytes)
      continue;
    std::istringstream header(bytes->substr(0, bytes->find('\n')));
    std::string magic, version, key;
    if (header >> magic >> version >> key && magic + " " + version == entryMagic(kind) && read(key, kind))
      out.push_back(key);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void DiskCache::write(const std::string &key, const std::string &bytes, Kind kind) const {
  if (!enabled())
    return;
  static std::atomic<unsigned> serial{0};
  std::string path = pathFor(key, kind),
              tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(serial++);
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return;
  std::string header =
      std::string(entryMagic(kind)) + " " + key + " " + std::to_string(bytes.size()) + " " + sha256Hex(bytes) + "\n";
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    std::remove(tmp.c_str());
}

} // namespace tk::runtime
