# Writes Version.cpp with the current git description and a hash of the
# compiler's sources and toolchain (the build id in every disk cache key, so
# that a compiler changed without a commit never serves PTX an older one
# made); rewrites only on change.
execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY ${SRC_DIR}
                OUTPUT_VARIABLE TK_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT TK_GIT_COMMIT)
  set(TK_GIT_COMMIT "unknown")
endif()
file(GLOB_RECURSE sources RELATIVE ${SRC_DIR} ${SRC_DIR}/compiler/*.cpp ${SRC_DIR}/compiler/*.h
     ${SRC_DIR}/compiler/*.td ${SRC_DIR}/compiler/*.in ${SRC_DIR}/dsl/signature/*)
list(SORT sources)
set(digests "${TK_LLVM_VERSION}")
foreach(f ${sources})
  file(SHA256 ${SRC_DIR}/${f} d)
  string(APPEND digests ";${f}=${d}")
endforeach()
string(SHA256 TK_BUILD_ID "${digests}")
string(SUBSTRING ${TK_BUILD_ID} 0 16 TK_BUILD_ID)
configure_file(${SRC_DIR}/compiler/lib/Version.cpp.in ${OUT} @ONLY)
