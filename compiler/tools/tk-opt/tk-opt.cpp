//===- tk-opt.cpp - mlir-opt for tile IR ----------------------------------===//
#include "tk/compiler/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tk::compiler::registerDialects(registry);
  tk::compiler::registerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tk optimizer driver\n", registry));
}
