# Every third-party library the core links, found in one place so that a missing one is reported
# by the package that provides it (Debian/Ubuntu, Fedora) rather than by a pkg-config module name,
# and all missing ones are reported at once. The layers under src/ use the targets made here:
# PkgConfig::ZSTD, ::CBOR, ::CRYPTO, ::XXHASH, ::BROTLIENC, ::BROTLIDEC, ::HWY, ::CURL,
# zt_htscodecs, ZLIB::ZLIB, nlohmann_json::nlohmann_json, Threads::Threads.
find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "zTensor needs pkg-config to find its libraries: "
                      "apt-get install pkg-config (Debian/Ubuntu) or dnf install pkgconf-pkg-config (Fedora)")
endif()

set(ZT_MISSING_DEBIAN "")
set(ZT_MISSING_FEDORA "")
macro(zt_missing what debian fedora)
  message(STATUS "zTensor: ${what} not found (Debian/Ubuntu: ${debian}; Fedora: ${fedora})")
  list(APPEND ZT_MISSING_DEBIAN ${debian})
  list(APPEND ZT_MISSING_FEDORA ${fedora})
endmacro()

# zt_require_pkg(PREFIX pkg-config-module debian-package fedora-package)
macro(zt_require_pkg prefix module debian fedora)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    zt_missing("pkg-config module ${module}" ${debian} ${fedora})
  endif()
endmacro()

zt_require_pkg(ZSTD      libzstd      libzstd-dev          libzstd-devel)
zt_require_pkg(CBOR      libcbor      libcbor-dev          libcbor-devel)
zt_require_pkg(CRYPTO    libcrypto    libssl-dev           openssl-devel)
zt_require_pkg(XXHASH    libxxhash    libxxhash-dev        xxhash-devel)
# Builds of libxxhash that include its xxh_x86dispatch.c (Debian's) export
# XXH3 entry points that pick AVX2 or AVX-512 at run time; the plain ones are
# SSE2. Same hashes either way.
if(XXHASH_FOUND AND NOT DEFINED ZT_XXH_DISPATCH)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_INCLUDES ${XXHASH_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LIBRARIES ${XXHASH_LINK_LIBRARIES})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("#include <xxh_x86dispatch.h>
int main() { return int(XXH3_64bits_dispatch(\"\", 0) & 1); }" ZT_XXH_DISPATCH)
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LIBRARIES)
  unset(CMAKE_REQUIRED_QUIET)
endif()
zt_require_pkg(BROTLIENC libbrotlienc libbrotli-dev        brotli-devel)
zt_require_pkg(BROTLIDEC libbrotlidec libbrotli-dev        brotli-devel)
# Highway: SIMD kernels with run-time dispatch (src/codec/field_kernels.cc).
zt_require_pkg(HWY       libhwy       libhwy-dev           highway-devel)
zt_require_pkg(CURL      libcurl      libcurl4-openssl-dev libcurl-devel)

# Debian's libhtscodecs-dev ships no .pc file: wrap the library by hand.
find_path(HTSCODECS_INCLUDE_DIR htscodecs/rANS_static4x16.h)
find_library(HTSCODECS_LIBRARY htscodecs)
if(HTSCODECS_INCLUDE_DIR AND HTSCODECS_LIBRARY)
  add_library(zt_htscodecs UNKNOWN IMPORTED)
  set_target_properties(zt_htscodecs PROPERTIES
    IMPORTED_LOCATION ${HTSCODECS_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${HTSCODECS_INCLUDE_DIR})
else()
  zt_missing("htscodecs (header htscodecs/rANS_static4x16.h, library libhtscodecs)" libhtscodecs-dev htscodecs-devel)
endif()

find_package(ZLIB QUIET)
if(NOT ZLIB_FOUND)
  zt_missing("zlib" zlib1g-dev zlib-devel)
endif()
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  zt_missing("nlohmann_json >= 3.10 (CMake package)" nlohmann-json3-dev json-devel)
endif()
find_package(Threads REQUIRED)

if(ZT_MISSING_DEBIAN)
  list(REMOVE_DUPLICATES ZT_MISSING_DEBIAN)
  list(REMOVE_DUPLICATES ZT_MISSING_FEDORA)
  list(JOIN ZT_MISSING_DEBIAN " " debian)
  list(JOIN ZT_MISSING_FEDORA " " fedora)
  message(FATAL_ERROR "zTensor cannot be built: development packages are missing (listed above).\n"
                      "  Debian/Ubuntu: apt-get install ${debian}\n"
                      "  Fedora:        dnf install ${fedora}\n"
                      "Or install a manylinux wheel, which carries these libraries: `make wheel` on a machine that has\n"
                      "  them leaves one per CPython in dist/; copy that folder and run\n"
                      "  pip install --find-links DIST \"ztensor==${PROJECT_VERSION}\" (README.md, Install).")
endif()
