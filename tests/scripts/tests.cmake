# scripts/check-layering: the include rules of ARCHITECTURE.md hold on the
# tree (scripts/test also runs it before the build) and on the link graph
# CMake writes (link-graph.tsv, cmake/link_graph.cmake), and the check fails
# on a copy with an injected bad include, bad link or stale exception.
add_test(NAME scripts.check_layering
  COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/check-layering --root ${CMAKE_SOURCE_DIR}
    --links ${CMAKE_BINARY_DIR}/link-graph.tsv)
add_test(NAME scripts.check_layering_fails_on_new_violation
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_layering_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/link-graph.tsv)
set_tests_properties(scripts.check_layering_fails_on_new_violation PROPERTIES TIMEOUT 120)

# scripts/check-sizes: no file over 600 lines nor function over 120 beyond
# those scripts/size-exceptions.txt names, and the check fails on a copy
# with a long function, a long file or a stale exception.
add_test(NAME scripts.check_sizes
  COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/check-sizes --root ${CMAKE_SOURCE_DIR})
add_test(NAME scripts.check_sizes_fails_on_new_oversize
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_sizes_test.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(scripts.check_sizes_fails_on_new_oversize PROPERTIES TIMEOUT 120)

# The compiler holds the include roots (cmake/include_roots.cmake): with a
# library's own include directories, its allowed headers preprocess and a
# forbidden one is not even found.
function(recon_include_root_test name target header)
  set(dirs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  add_test(NAME layering.${name}
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -E -o /dev/null "-I$<JOIN:${dirs},;-I>" -include ${header}
      -x c++ /dev/null
    COMMAND_EXPAND_LISTS)
  if(ARGN STREQUAL "FORBIDDEN")
    set_tests_properties(layering.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${header}: No such file")
  endif()
endfunction()
recon_include_root_test(samples_finds_its_own_and_the_engines recon_samples domains/samples/reducer.h)
recon_include_root_test(samples_cannot_include_the_runtime recon_samples runtime/runtime.h FORBIDDEN)
recon_include_root_test(samples_cannot_include_an_adapter recon_samples adapters/k8s/paths.h FORBIDDEN)
recon_include_root_test(samples_cannot_include_another_domain recon_samples domains/olm/reducer.h FORBIDDEN)
recon_include_root_test(engine_cannot_include_the_runtime recon_engine runtime/runtime.h FORBIDDEN)
recon_include_root_test(store_sees_only_the_records recon_store engine/world.h FORBIDDEN)
recon_include_root_test(store_finds_the_records_codec recon_store records/codec.h)
recon_include_root_test(records_cannot_include_the_store recon_records store/event_store.h FORBIDDEN)
recon_include_root_test(olm_catalog_cannot_include_its_resolver recon_olm_catalog domains/olm/resolve/solver.h
  FORBIDDEN)
recon_include_root_test(olm_finds_its_libraries recon_olm domains/olm/resolve/solver.h)
recon_include_root_test(k8s_cannot_include_a_domain recon_k8s domains/samples/reducer.h FORBIDDEN)
recon_include_root_test(k8s_finds_the_runtime_and_transport recon_k8s adapters/k8s/reflector.h)
