# `cmake --install build --prefix P` puts the C API where applications find
# it: include/tk/tk.h, lib/libtk.so, the `tk` and `tk-opt` tools in bin/, a
# CMake package (find_package(tk CONFIG) gives tk::tk) and a pkg-config
# file (pkg-config --cflags --libs tk). For kernel authors, tk::dsl: the
# public header tk/dsl.hpp with the DSL, compiler and runtime headers under
# include/tk, and their static libraries in lib/tk (they link Debian's
# libMLIR/libLLVM, which the package finds). tests/install/ builds programs
# against an installed prefix (ctest: install_consumer).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(NOT TK_STATIC_LLVM)
  # libtk and the tools load Debian's libMLIR/libLLVM from where they are.
  set_target_properties(tk tk_cli tk-opt PROPERTIES INSTALL_RPATH "${TK_LLVM_ROOT}/lib")
endif()
install(TARGETS tk EXPORT tkTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# libtk_rt: the same C API without LLVM or MLIR, for processes that run bundled kernels (tk bundle).
install(TARGETS tk_rt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tk_cli tk-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/tk/tk.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tk)

# tk::dsl is tk_author and the layers it links, static; consumers find the
# MLIR/LLVM headers where this build found them.
set_target_properties(tk_author PROPERTIES EXPORT_NAME dsl)
target_include_directories(tk_compiler SYSTEM PUBLIC $<INSTALL_INTERFACE:${TK_LLVM_ROOT}/include>)
install(TARGETS tk_author tk_kernels tk_references tk_dsl tk_runtime tk_compiler tk_signature tk_ptxas EXPORT tkTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/tk)
install(FILES ${CMAKE_SOURCE_DIR}/include/tk/dsl.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tk)
foreach(root dsl/include dsl/signature/include compiler/include runtime/include)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${root}/tk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h")
endforeach()
# The dialect's generated declarations (TableGen).
install(DIRECTORY ${CMAKE_BINARY_DIR}/compiler/include/tk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT tkTargets NAMESPACE tk:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tkConfig.cmake.in ${CMAKE_BINARY_DIR}/tkConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tkConfigVersion.cmake VERSION ${TK_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tkConfig.cmake ${CMAKE_BINARY_DIR}/tkConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)

configure_file(${CMAKE_SOURCE_DIR}/cmake/tk.pc.in ${CMAKE_BINARY_DIR}/tk.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
