//===- ptxas.h - assemble PTX with the CUDA toolkit's ptxas, read its report ===//
#pragma once

#include <string>

namespace tk::tools {

struct PtxasReport {
  bool ok = false;
  std::string error;
  int registers = 0;
  int spillStoreBytes = 0, spillLoadBytes = 0, stackBytes = 0;
  int sharedBytes = 0;
  int spilledBytes() const { return spillStoreBytes + spillLoadBytes; }
};

/// $TK_PTXAS, else ptxas on PATH, else /usr/local/cuda/bin/ptxas; "" if none.
std::string findPtxas();
/// `ptxas -arch=<arch> -v <ptxFile> -o <cubinFile>`; fills the resource
/// report (the cubin is dropped unless `cubinFile` names a file).
PtxasReport runPtxas(const std::string &ptxas, const std::string &ptxFile, const std::string &arch,
                     const std::string &cubinFile = "/dev/null");
/// runPtxas on PTX text (through a temporary file, removed afterwards).
PtxasReport assemblePtx(const std::string &ptxas, const std::string &ptx, const std::string &arch);

} // namespace tk::tools
