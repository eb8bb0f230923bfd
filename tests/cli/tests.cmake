# Script tests owned by tests/cli (included by tests/CMakeLists.txt).
add_test(NAME cli.dfa_sim_converges
  COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon>
    -DSCENARIO=${CMAKE_SOURCE_DIR}/examples/scenarios/disconnected-dfa.json
    -DSTORE=${CMAKE_BINARY_DIR}/dfa-sim-store -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/dfa_sim_check.cmake)

# recon mirror-list and recon catalog related-images on the real data
# (datasets/): goldens checked against independent counts (see
# tests/cli/testdata/mirror/README.md), and bad input.
set(RECON_DATA ${CMAKE_SOURCE_DIR}/datasets)
set(RECON_MIRROR ${CMAKE_CURRENT_SOURCE_DIR}/cli/testdata/mirror)
function(recon_cli_test name rc)
  cmake_parse_arguments(T "" "GOLDEN;STDERR" "ARGS" ${ARGN})
  string(REPLACE ";" "|" args "${T_ARGS}")  # a list cannot cross the command line
  set(defs -DRECON=$<TARGET_FILE:recon> "-DARGS=${args}" -DWORKDIR=${RECON_DATA} -DRC=${rc})
  if(T_GOLDEN)
    list(APPEND defs -DGOLDEN=${T_GOLDEN})
  endif()
  if(T_STDERR)
    list(APPEND defs "-DSTDERR_MATCHES=${T_STDERR}")
  endif()
  add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_golden.cmake)
endfunction()

# The real data is in the repository (datasets/): a missing input is a failure.
if(NOT EXISTS ${RECON_DATA}/olm/community-v4.19)
  message(FATAL_ERROR "${RECON_DATA} not found: the real-data tests need the repository's datasets/")
endif()
recon_cli_test(mirror_list_subscriptions 0 GOLDEN ${RECON_MIRROR}/subscriptions.list.expected
  ARGS mirror-list ${RECON_MIRROR}/subscriptions.yaml --catalog olm/community-v4.19)
recon_cli_test(mirror_list_imageset 0 GOLDEN ${RECON_MIRROR}/subscriptions_samples.imageset.expected
  ARGS mirror-list ${RECON_MIRROR}/subscriptions.yaml --catalog olm/community-v4.19 --samples samples/ocp-x86_64
    --samples-registry mirror.example.com:5000 --format imageset)
recon_cli_test(mirror_list_ist_to_image 0 GOLDEN ${RECON_MIRROR}/ist_to_image.expected
  ARGS mirror-list imagestreamtag-to-image --samples samples/ocp-x86_64)
recon_cli_test(mirror_list_missing_package 1 STDERR "package \"nope\" not found in olm/community-v4.19"
  ARGS mirror-list --package nope --catalog olm/community-v4.19)
recon_cli_test(mirror_list_unknown_channel 1 STDERR "has no channel \"beta\" \\(channels: stable\\)"
  ARGS mirror-list --package cat-facts-operator --channel beta --catalog olm/community-v4.19)
recon_cli_test(mirror_list_unreadable_file 1 STDERR "/nonexistent/subs.yaml: cannot open"
  ARGS mirror-list /nonexistent/subs.yaml --catalog olm/community-v4.19)
recon_cli_test(mirror_list_not_a_subscription 1 STDERR "object 1 \\(openshift-marketplace/community\\): kind \"CatalogSource\", expected Subscription"
  ARGS mirror-list ${RECON_MIRROR}/not_a_subscription.json --catalog olm/community-v4.19)
recon_cli_test(mirror_list_no_catalog 2 STDERR "subscriptions need at least one --catalog DIR"
  ARGS mirror-list --package cat-facts-operator)
recon_cli_test(catalog_related_images_check 1
  STDERR "checked 757 bundles, 4770 image references: 1731 findings in 703 bundles \\(1731 tag references, 0 env images not in relatedImages, 0 other\\)"
  ARGS catalog related-images olm/community-v4.19 --check)
recon_cli_test(catalog_related_images_package 0 GOLDEN ${RECON_MIRROR}/cat_facts.related.expected
  ARGS catalog related-images olm/community-v4.19 --package cat-facts-operator)
recon_cli_test(catalog_related_images_missing_package 1 STDERR "package \"nope\" not found"
  ARGS catalog related-images olm/community-v4.19 --package nope)
# From a recorded log: its olm/catalog Content and its Subscription
# (startingCSV etcd.v0.9.0 → v0.9.2 → v0.9.4 on stable).
recon_cli_test(mirror_list_from_log 0 GOLDEN ${RECON_MIRROR}/multi_step_upgrade_log.list.expected
  ARGS mirror-list --log ${CMAKE_SOURCE_DIR}/tests/scenarios/olm/multi_step_upgrade.jsonl)
recon_cli_test(mirror_list_bad_log 1 STDERR "/nonexistent/log.jsonl"
  ARGS mirror-list --log /nonexistent/log.jsonl)
add_test(NAME cli.mirror_list_from_store
  COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon>
    -DLOG=${CMAKE_SOURCE_DIR}/tests/scenarios/olm/multi_step_upgrade.jsonl
    -DGOLDEN=${RECON_MIRROR}/multi_step_upgrade_log.list.expected
    -DSTORE=${CMAKE_BINARY_DIR}/mirror-list-store -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/mirror_store_check.cmake)

# The samples domain end to end over HTTP: the live agent against `recon sim
# serve`, kubectl as the admin (Managed -> Removed -> Managed); skipped without
# kubectl >= 1.27.
add_test(NAME cli.kubectl_agent_e2e
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/kubectl_agent_e2e.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR}
    ${CMAKE_BINARY_DIR}/kubectl-agent-e2e)
set_tests_properties(cli.kubectl_agent_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)

# An empty Content catalog replays from the JSONL file as from a store.
add_test(NAME cli.empty_catalog_replays_from_file_and_store
  COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon>
    -DLOG=${CMAKE_SOURCE_DIR}/tests/scenarios/olm/empty_catalog.jsonl "-DARGS=--domains|olm"
    -DSTORE=${CMAKE_BINARY_DIR}/empty-catalog-store -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/same_replay_check.cmake)

# The README's example with the real inventory (issue 18: it never
# converged, stuck at "pending 102"): converges, replays, well under a minute.
add_test(NAME cli.agent_readme_real_inventory
    COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon>
      -DSCENARIO=${CMAKE_SOURCE_DIR}/examples/scenarios/samples-removed.json
      "-DARGS=--set|samples.inventory=${RECON_DATA}/samples/ocp-x86_64"
      -DSTORE=${CMAKE_BINARY_DIR}/agent-readme-store -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/agent_e2e.cmake)
set_tests_properties(cli.agent_readme_real_inventory PROPERTIES TIMEOUT 45)

# samples (real inventory), disconnected and olm (real catalog) as the live
# agent against `recon sim serve` with the real CRDs: converged, zero refused
# writes, no InstallPlan loop (issue 18).
add_test(NAME cli.live_domains_e2e
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/live_domains_e2e.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR}
    ${CMAKE_BINARY_DIR}/live-domains-e2e ${RECON_DATA})
set_tests_properties(cli.live_domains_e2e PROPERTIES TIMEOUT 240)

# Shadow mode side by side (issue 21): an acting agent (field manager
# `manager`) and a shadow agent on one `recon sim serve` (disconnected-dfa at
# speed 120): every prediction matches; then writes sent by hand as the
# operator give one differs, missed and unpredicted each, named in the
# report, /metrics and `recon explain --shadow`; nothing is sent (18-30 s).
add_test(NAME cli.shadow_side_by_side_e2e
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/shadow_side_by_side_e2e.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR}
    ${CMAKE_BINARY_DIR}/shadow-side-by-side-e2e)
set_tests_properties(cli.shadow_side_by_side_e2e PROPERTIES TIMEOUT 60)

# One dispatch path (issue 20): recon sim and recon agent --cluster sim log
# the same run, on every example scenario.
file(GLOB RECON_EXAMPLE_SCENARIOS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/scenarios/*.json)
foreach(sc ${RECON_EXAMPLE_SCENARIOS})
  get_filename_component(scname ${sc} NAME_WE)
  add_test(NAME cli.one_dispatch_path.${scname}
    COMMAND ${CMAKE_COMMAND} -DRECON=$<TARGET_FILE:recon> -DSCENARIO=${sc}
      -DWORK=${CMAKE_BINARY_DIR}/one-dispatch-${scname} -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/one_dispatch_path_check.cmake)
endforeach()
