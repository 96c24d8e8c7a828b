# Writes Version.cpp with the current git description and a hash of the
# compiler's sources and toolchain (the build id in every disk cache key, so
# that a compiler changed without a commit never serves PTX an older one
# made); rewrites only on change.
execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY ${SRC_DIR}
                OUTPUT_VARIABLE TK_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT TK_GIT_COMMIT)
  set(TK_GIT_COMMIT "unknown")
endif()
# OUT_VAR: 16 hex digits of a SHA-256 over SEED and each file of GLOBS (its
# path and its own SHA-256), in sorted order.
function(tk_sources_hash OUT_VAR SEED)
  file(GLOB_RECURSE files RELATIVE ${SRC_DIR} ${ARGN})
  list(SORT files)
  set(digests "${SEED}")
  foreach(f ${files})
    file(SHA256 ${SRC_DIR}/${f} d)
    string(APPEND digests ";${f}=${d}")
  endforeach()
  string(SHA256 hash "${digests}")
  string(SUBSTRING ${hash} 0 16 hash)
  set(${OUT_VAR} ${hash} PARENT_SCOPE)
endfunction()
tk_sources_hash(TK_BUILD_ID "${TK_LLVM_VERSION}" ${SRC_DIR}/compiler/*.cpp ${SRC_DIR}/compiler/*.h
                ${SRC_DIR}/compiler/*.td ${SRC_DIR}/compiler/*.in ${SRC_DIR}/dsl/signature/*)
# The shipped kernels' programs and the DSL they are written in: with the
# build id, what names a kernel in the disk index (KernelIndex.cpp) the same
# way in every binary built from these sources.
tk_sources_hash(TK_PROGRAMS_ID "${TK_BUILD_ID}" ${SRC_DIR}/kernels/*.cpp ${SRC_DIR}/kernels/*.h
                ${SRC_DIR}/kernels/*.tsv ${SRC_DIR}/dsl/*.cpp ${SRC_DIR}/dsl/*.h)
configure_file(${SRC_DIR}/compiler/lib/Version.cpp.in ${OUT} @ONLY)
