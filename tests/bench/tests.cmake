# The benches' deterministic counts (events, actions, writes by verb and
# kind, plans, resolutions, subscriptions at head) against a golden: a
# regression fails whatever the machine's speed (issue 35).
add_test(NAME bench.counts_guard
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/counts_guard.py $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(bench.counts_guard PROPERTIES TIMEOUT 120)

# `bench olm --peer`: the race against a peer speaking the protocol, the
# answers compared, and every way a peer can fail named.
add_test(NAME bench.peer_race
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/peer_race_test.py $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(bench.peer_race PROPERTIES TIMEOUT 300)

# `bench olm --heap`: the peak heap by component, through jemalloc's arenas.
add_test(NAME bench.heap_split
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/heap_split_test.py $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(bench.heap_split PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
