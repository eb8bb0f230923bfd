# fuzz/: each libFuzzer target's invariants, without clang. fuzz_seeds writes
# the seed corpora once (a fixture), then every fuzz_X_replay runs its seeds,
# its fuzz/regressions/ inputs and a fixed number of deterministic mutations
# of each (fuzz/replay_main.cc). Coverage-guided fuzzing under ASan/UBSan is
# scripts/fuzz (CONTRIBUTING.md).
if(NOT RECON_FUZZ)
  set(fuzz_seed_dir ${CMAKE_BINARY_DIR}/fuzz-seeds)
  set(fuzz_shared_data ${CMAKE_SOURCE_DIR}/datasets)
  add_test(NAME fuzz.seeds
    COMMAND sh -c "rm -rf '${fuzz_seed_dir}' && '$<TARGET_FILE:fuzz_seeds>' '${fuzz_seed_dir}' '${CMAKE_SOURCE_DIR}' ${fuzz_shared_data}")
  set_tests_properties(fuzz.seeds PROPERTIES FIXTURES_SETUP fuzz_seeds TIMEOUT 300)
  foreach(t fuzz_jsonl_line fuzz_store_record fuzz_snapshot_restore fuzz_olm_catalog fuzz_semver_range
          fuzz_sim_scenario fuzz_redact fuzz_watch_stream fuzz_kubeconfig fuzz_cel)
    set(inputs "")
    if(EXISTS ${CMAKE_SOURCE_DIR}/fuzz/regressions/${t})
      list(APPEND inputs ${CMAKE_SOURCE_DIR}/fuzz/regressions/${t})
    endif()
    # fuzz_cel has no generated seeds: its regressions are its seeds.
    if(NOT t STREQUAL "fuzz_cel")
      list(APPEND inputs ${fuzz_seed_dir}/${t})
    endif()
    add_test(NAME fuzz.replay.${t} COMMAND ${t}_replay --mutations 24 ${inputs})
    set_tests_properties(fuzz.replay.${t} PROPERTIES FIXTURES_REQUIRED fuzz_seeds TIMEOUT 300
      PASS_REGULAR_EXPRESSION ": ok")
  endforeach()
endif()
