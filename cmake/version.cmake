# Writes Version.cpp with the current git description; rewrites only on change.
execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY ${SRC_DIR}
                OUTPUT_VARIABLE TK_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT TK_GIT_COMMIT)
  set(TK_GIT_COMMIT "unknown")
endif()
configure_file(${SRC_DIR}/compiler/lib/Version.cpp.in ${OUT} @ONLY)
