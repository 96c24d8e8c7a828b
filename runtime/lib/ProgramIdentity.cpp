//===- ProgramIdentity.cpp ------------------------------------------------===//
#include "tk/runtime/ProgramIdentity.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <link.h>

namespace tk::runtime {

namespace {

struct Search {
  uintptr_t address;
  std::string buildId;
  uintptr_t objectStart = 0;
};

/// The GNU build id in the notes of `segment` (loaded at `start`), or "".
std::string buildIdIn(uintptr_t start, size_t size) {
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(start + at);
    const size_t name = (n->n_namesz + 3) & ~size_t(3), desc = (n->n_descsz + 3) & ~size_t(3);
    const char *nameBytes = reinterpret_cast<const char *>(n + 1);
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(nameBytes, "GNU", 4) == 0) {
      const auto *id = reinterpret_cast<const unsigned char *>(nameBytes + name);
      std::string hex;
      char byte[3];
      for (size_t i = 0; i < n->n_descsz; ++i) {
        std::snprintf(byte, sizeof(byte), "%02x", id[i]);
        hex += byte;
      }
      return hex;
    }
    at += sizeof(ElfW(Nhdr)) + name + desc;
  }
  return "";
}

int visit(dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<Search *>(data);
  bool contains = false;
  uintptr_t lowest = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD)
      continue;
    const uintptr_t start = info->dlpi_addr + p.p_vaddr;
    lowest = std::min(lowest, start);
    contains |= s->address >= start && s->address < start + p.p_memsz;
  }
  if (!contains)
    return 0;
  for (int i = 0; i < info->dlpi_phnum && s->buildId.empty(); ++i)
    if (info->dlpi_phdr[i].p_type == PT_NOTE)
      s->buildId = buildIdIn(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr, info->dlpi_phdr[i].p_memsz);
  s->objectStart = lowest;
  return 1; // found its object
}

} // namespace

std::string programIdentity(const void *program) {
  if (!program)
    return "";
  Search s{reinterpret_cast<uintptr_t>(program), ""};
  dl_iterate_phdr(visit, &s);
  if (s.buildId.empty())
    return "";
  char offset[32];
  std::snprintf(offset, sizeof(offset), "+%llx", (unsigned long long)(s.address - s.objectStart));
  return s.buildId + offset;
}

} // namespace tk::runtime
