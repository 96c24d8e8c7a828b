//===- tk-opt.cpp - mlir-opt for tile IR ----------------------------------===//
//
// mlir-opt's driver, with the tile dialect and passes, and a check of the
// input's nesting depth before it is parsed (InputLimits.h).
//===----------------------------------------------------------------------===//
#include "tk/compiler/InputLimits.h"
#include "tk/compiler/Registration.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tk::compiler::registerDialects(registry);
  tk::compiler::registerPasses();
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, "tk optimizer driver\n", registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  const unsigned id = sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  if (!tk::compiler::checkNestingDepth(sourceMgr, id))
    return 1;
  if (inputFilename != "-") // the driver reads the file again
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  // Standard input can be read once: hand the driver what was read.
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(sourceMgr.getMemoryBuffer(id)->getBuffer(), "<stdin>");
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(buffer), registry,
                                     mlir::MlirOptMainConfig::createFromCLOptions())))
    return 1;
  output->keep();
  return 0;
}
