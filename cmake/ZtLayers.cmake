# zt_layer_headers(<target> <layer>): the internal headers of src/<layer>/, spelled "<layer>/x.h",
# for <target> and for whatever links it (PUBLIC), and for no one else.
#
# A -I of src/ would show every layer's headers to every layer, so an include pointing up or sideways
# would compile (docs/architecture.md, "Layers"). Instead each layer has its own include root in the
# build tree, holding one entry: a link named after the layer, pointing at src/<layer>. A layer
# reaches another's internal headers only by linking its target, which the layering allows or not;
# tests/build_checks/layer_probes.cmake shows the compiler refusing the others. Subfolders
# (src/codec/frame/, src/convert/gguf/) come along through the one link.
function(zt_layer_headers target layer)
  set(root "${PROJECT_BINARY_DIR}/layer_include/${layer}")
  set(link "${root}/${layer}")
  set(dir "${PROJECT_SOURCE_DIR}/src/${layer}")
  if(IS_SYMLINK "${link}")
    file(READ_SYMLINK "${link}" current)
  endif()
  if(NOT current STREQUAL dir)
    file(REMOVE "${link}")
    file(MAKE_DIRECTORY "${root}")
    file(CREATE_LINK "${dir}" "${link}" SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC "${root}")
endfunction()
