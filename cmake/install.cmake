# `cmake --install build --prefix P` puts the C API where applications find
# it: include/tk/tk.h, lib/libtk.so, the `tk` and `tk-opt` tools in bin/, a
# CMake package (find_package(tk CONFIG) gives tk::tk) and a pkg-config
# file (pkg-config --cflags --libs tk). tests/install/ builds a program
# against an installed prefix both ways (ctest: install_consumer).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(NOT TK_STATIC_LLVM)
  # libtk and the tools load Debian's libMLIR/libLLVM from where they are.
  set_target_properties(tk tk_cli tk-opt PROPERTIES INSTALL_RPATH "${TK_LLVM_ROOT}/lib")
endif()
install(TARGETS tk EXPORT tkTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tk_cli tk-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/tk/tk.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tk)
install(EXPORT tkTargets NAMESPACE tk:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tkConfig.cmake.in ${CMAKE_BINARY_DIR}/tkConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tkConfigVersion.cmake VERSION ${TK_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tkConfig.cmake ${CMAKE_BINARY_DIR}/tkConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tk)

configure_file(${CMAKE_SOURCE_DIR}/cmake/tk.pc.in ${CMAKE_BINARY_DIR}/tk.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
