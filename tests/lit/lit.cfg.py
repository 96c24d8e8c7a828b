# lit configuration for tk: tk-opt + FileCheck tests, one folder per pass.
import os
import lit.formats

config.name = "tk"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = config.tk_test_source
config.environment["PATH"] = os.pathsep.join(
    [config.tk_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]
