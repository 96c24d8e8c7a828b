//===- KernelIndex.cpp ----------------------------------------------------===//
#include "tk/runtime/KernelIndex.h"
#include "tk/compiler/Version.h"
#include "tk/dsl/SignatureText.h"
#include "tk/runtime/ProgramIdentity.h"

namespace tk::runtime {

std::string indexKey(const KernelFactory &factory, const compiler::Target &target, const std::string &optionsTag) {
  // A named program is the same in every binary of these sources; another
  // is known by the binary that holds it.
  const std::string program = !factory.programName.empty()
                                  ? "named:" + factory.programName + "@" + compiler::programsId()
                                  : programIdentity(factory.program);
  if (program.empty())
    return "";
  const std::string text = "tk-index\n" + program + "\n" + factory.config + "\n" + target.name + "\n" + optionsTag +
                           "\n" + compiler::buildId();
  return sha256Hex(text);
}

bool readIndex(const DiskCache &disk, const std::string &key, std::string &contentKey, dsl::KernelSignature &sig) {
  std::optional<std::string> entry = disk.read(key, DiskCache::Kind::Index);
  if (!entry)
    return false;
  const size_t eol = entry->find('\n');
  std::string error;
  if (eol == std::string::npos || eol == 0 || !dsl::readSignature(entry->substr(eol + 1), sig, error))
    return false;
  contentKey = entry->substr(0, eol);
  return true;
}

void writeIndex(const DiskCache &disk, const std::string &key, const std::string &contentKey,
                const dsl::KernelSignature &sig) {
  if (std::optional<std::string> text = dsl::writeSignature(sig))
    disk.write(key, contentKey + "\n" + *text, DiskCache::Kind::Index);
}

} // namespace tk::runtime
