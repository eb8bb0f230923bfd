# Every shell session the README and docs/commands.md show ("$ command" and
# its output) is run and compared (check_outputs.py: times, rates, memory
# sizes and ports masked), so a stale example fails the suite. Sessions
# that cannot run here are listed with the reason.
add_test(NAME docs.shown_outputs
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/check_outputs.py --recon $<TARGET_FILE:recon>
    --source ${CMAKE_SOURCE_DIR} README.md docs/commands.md)
set_tests_properties(docs.shown_outputs PROPERTIES TIMEOUT 600)
