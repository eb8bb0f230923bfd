# Per-target include roots. Every include names a path from the source root
# ("engine/world.h"), so a target is not given the root itself: it gets a
# directory of its own under build/include-roots/ holding symlinks to the
# folders it may include, and the folders of the libraries it links come
# with them (PUBLIC). A domain's library sees engine/, store/, schema/ and
# base/ and its own folder: an include of runtime/ or adapters/ does not
# compile. scripts/check-layering checks the finer rules (ARCHITECTURE.md).
#
#   recon_include_root(target PUBLIC engine store PRIVATE ...)
#   (INTERFACE for an interface library)
# Each path is relative to the source root: a folder or one file.
function(recon_include_root target)
  cmake_parse_arguments(R "" "" "PUBLIC;PRIVATE;INTERFACE" ${ARGN})
  foreach(vis PUBLIC PRIVATE INTERFACE)
    if(NOT R_${vis})
      continue()
    endif()
    string(TOLOWER ${vis} v)
    set(root ${CMAKE_BINARY_DIR}/include-roots/${target}/${v})
    foreach(p ${R_${vis}})
      if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${p})
        message(FATAL_ERROR "recon_include_root(${target}): ${p} is not in the source tree")
      endif()
      get_filename_component(parent ${root}/${p} DIRECTORY)
      file(MAKE_DIRECTORY ${parent})
      if(NOT IS_SYMLINK ${root}/${p})
        file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${p} ${root}/${p} SYMBOLIC)
      endif()
    endforeach()
    target_include_directories(${target} ${vis} ${root})
  endforeach()
endfunction()

# Wiring and tests (cli/, soak/, bench/, fuzz/, tests/) may include
# anything: the whole source root.
function(recon_include_everything target visibility)
  target_include_directories(${target} ${visibility} ${CMAKE_SOURCE_DIR})
endfunction()
