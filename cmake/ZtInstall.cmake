# `cmake --install`: the C library (shared and static), the public headers of include/, the `zt`
# command (cli/CMakeLists.txt) and a pkg-config file. Not used by the wheel (scikit-build-core),
# which installs only the Python packages (python/CMakeLists.txt).
include(GNUInstallDirs)

install(TARGETS ztensor ztensor_static
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The headers and the error list they include (ztensor/error_codes.def).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")

# ztensor.pc finds its prefix from its own place (${pcfiledir}), so `cmake --install --prefix DIR`
# and a moved tree both work. Requires.private/Libs.private are what a static link (libztensor.a)
# needs; htscodecs has no .pc file on Debian, and the C++ runtime is named for C programs.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ZT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(ZT_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" libdir_parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(part IN LISTS libdir_parts)
    string(APPEND ZT_PC_PREFIX "/..")
  endforeach()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/ztensor.pc.in ${PROJECT_BINARY_DIR}/ztensor.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ztensor.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
