# Script tests owned by tests/cli (included by tests/CMakeLists.txt).
add_test(NAME cli.dfa_sim_converges
  COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon>
    -DSCENARIO=${CMAKE_SOURCE_DIR}/examples/scenarios/disconnected-dfa.json
    -DSTORE=${CMAKE_BINARY_DIR}/dfa-sim-store -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/dfa_sim_check.cmake)
