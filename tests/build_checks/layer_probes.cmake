# The compiler keeps the layering (docs/architecture.md, cmake/ZtLayers.cmake). Each probe is one
# source, `#include "<layer>/<header>"`, compiled with the usage requirements of one layer's
# target: what that layer's own sources see. The ctest case builds it. An include the layering
# forbids must fail with "file not found"; an allowed one must compile, so the failures are the
# rule at work and not a broken probe. Built only by its test (EXCLUDE_FROM_ALL).

# A header of src/<layer>/, found when configuring so the probes follow files as they move.
function(zt_some_header layer out)
  file(GLOB_RECURSE headers RELATIVE "${PROJECT_SOURCE_DIR}/src" "${PROJECT_SOURCE_DIR}/src/${layer}/*.h")
  list(SORT headers)
  list(GET headers 0 header)
  set(${out} "${header}" PARENT_SCOPE)
endfunction()

# zt_layer_probe(<name> <layer target> <layer whose header it includes> compiles|fails)
function(zt_layer_probe name target layer expect)
  zt_some_header(${layer} header)
  set(source "${CMAKE_CURRENT_BINARY_DIR}/layer_probes/${name}.cc")
  file(CONFIGURE OUTPUT "${source}" CONTENT "#include \"${header}\"\n")
  add_library(${name} OBJECT EXCLUDE_FROM_ALL "${source}")
  target_link_libraries(${name} PRIVATE ${target})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target ${name})
  # One build at a time in the tree.
  set_tests_properties(${name} PROPERTIES RESOURCE_LOCK zt_build_tree)
  if(expect STREQUAL "fails")
    string(REPLACE "." "\\." pattern "${header}")
    set_tests_properties(${name} PROPERTIES
      PASS_REGULAR_EXPRESSION "${pattern}: No such file or directory|'${pattern}' file not found")
  elseif(NOT expect STREQUAL "compiles")
    message(FATAL_ERROR "zt_layer_probe(${name}): expect 'compiles' or 'fails', not '${expect}'")
  endif()
endfunction()

# Up: a lower layer cannot see a higher one.
zt_layer_probe(layer_probe_codec_includes_convert zt_codec convert fails)
zt_layer_probe(layer_probe_common_includes_container zt_common container fails)
# Sideways: container, codec and remote cannot see each other.
zt_layer_probe(layer_probe_container_includes_codec zt_container codec fails)
zt_layer_probe(layer_probe_codec_includes_container zt_codec container fails)
zt_layer_probe(layer_probe_remote_includes_codec zt_remote codec fails)
zt_layer_probe(layer_probe_container_includes_remote zt_container remote fails)
# Down, through the links: allowed, and it compiles.
zt_layer_probe(layer_probe_codec_includes_common zt_codec common compiles)
zt_layer_probe(layer_probe_convert_includes_codec zt_z4ai_encoding codec compiles)
zt_layer_probe(layer_probe_convert_includes_container zt_convert container compiles)
zt_layer_probe(layer_probe_capi_includes_convert zt_capi convert compiles)
