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
