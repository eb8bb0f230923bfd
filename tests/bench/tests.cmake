# The benches' deterministic counts (events, actions, writes by verb and
# kind, plans, resolutions, subscriptions at head) against a golden: a
# regression fails whatever the machine's speed (issue 35).
add_test(NAME bench.counts_guard
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/counts_guard.py $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(bench.counts_guard PROPERTIES TIMEOUT 120)
