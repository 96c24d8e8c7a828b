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
# The shipped kernels' programs and the DSL they are written in: with the
# build id, what names a kernel in the disk index (KernelIndex.cpp) the same
# way in every binary built from these sources.
file(GLOB_RECURSE programs RELATIVE ${SRC_DIR} ${SRC_DIR}/kernels/*.cpp ${SRC_DIR}/kernels/*.h
     ${SRC_DIR}/kernels/*.tsv ${SRC_DIR}/dsl/*.cpp ${SRC_DIR}/dsl/*.h)
list(SORT programs)
set(digests "${TK_BUILD_ID}")
foreach(f ${programs})
  file(SHA256 ${SRC_DIR}/${f} d)
  string(APPEND digests ";${f}=${d}")
endforeach()
string(SHA256 TK_PROGRAMS_ID "${digests}")
string(SUBSTRING ${TK_PROGRAMS_ID} 0 16 TK_PROGRAMS_ID)
configure_file(${SRC_DIR}/compiler/lib/Version.cpp.in ${OUT} @ONLY)
