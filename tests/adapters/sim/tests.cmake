# adapters/sim: the HTTP API server's unit tests talk to it with libcurl;
# the kubectl check drives `recon sim serve` with a real kubectl (skipped,
# exit 77, when kubectl is not on PATH).
target_link_libraries(adapters_sim_tests PRIVATE curl)
add_test(NAME adapters_sim.kubectl_serve
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/kubectl_serve_test.sh $<TARGET_FILE:recon>
    ${CMAKE_CURRENT_LIST_DIR}/testdata/serve-samples.json ${CMAKE_BINARY_DIR}/kubectl-serve-test)
set_tests_properties(adapters_sim.kubectl_serve PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
