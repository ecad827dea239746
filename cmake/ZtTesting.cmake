# zt_add_gtest(<name> SOURCES <file>... [LIBS <target>...] [INCLUDES <dir>...])
# One GoogleTest executable, its tests discovered by ctest. Every test sees
# ZT_SOURCE_DIR (to find tests/formats/ and golden files) and tests/unit/
# on its include path (test_util.h); every test links the assembled core
# (zt_internal: libztensor plus src/ for white-box tests).
find_package(GTest REQUIRED)
find_package(nlohmann_json REQUIRED)
include(GoogleTest)

set(ZT_UNIT_TEST_DIR ${CMAKE_CURRENT_LIST_DIR}/../tests/unit)

function(zt_add_gtest name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBS;INCLUDES")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SOURCES)
    message(FATAL_ERROR "zt_add_gtest(${name}): expected SOURCES <file>... [LIBS ...] [INCLUDES ...]")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE zt_internal ${ARG_LIBS} GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${ZT_UNIT_TEST_DIR} ${ARG_INCLUDES})
  target_compile_definitions(${name} PRIVATE ZT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
endfunction()
