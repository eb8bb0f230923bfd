# Runs one scenario through `recon replay`, exactly as a user would, and
# compares stdout with the golden <name>.expected file; the same process
# then replays it from a snapshot taken after every event (every scenario
# of every domain: the snapshot-at-every-seq check).
#   -DRECON=path/to/recon -DSCENARIO=path/to/name.jsonl
# Optional <name>.args: extra arguments, one per line (e.g. --set, k=v).
get_filename_component(dir ${SCENARIO} DIRECTORY)
get_filename_component(name ${SCENARIO} NAME_WE)
set(args)
if(EXISTS ${dir}/${name}.args)
  file(STRINGS ${dir}/${name}.args args)
endif()
# --check-snapshots: then replayed again from a snapshot after every event
# (ARCHITECTURE.md, "Reducers: the contract"); a difference in the actions
# or the final state fails the test. A domain listed in
# snapshot-state-exceptions.txt (a known bug, named there) is checked for
# its actions only until the bug is fixed.
get_filename_component(domain ${dir} NAME)
set(check --check-snapshots)
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/snapshot-state-exceptions.txt known REGEX "^[a-z]")
foreach(line ${known})
  string(REGEX REPLACE "[ \t#].*" "" listed "${line}")
  if(listed STREQUAL domain)
    list(APPEND check --snapshot-actions-only)
  endif()
endforeach()
execute_process(COMMAND ${RECON} replay ${SCENARIO} ${args} ${check}
  OUTPUT_VARIABLE actual ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon replay exited ${rc}: ${err}")
endif()
if(NOT EXISTS ${dir}/${name}.expected)
  message(FATAL_ERROR "missing ${dir}/${name}.expected (write it with scripts/update-scenarios, then review it)")
endif()
file(READ ${dir}/${name}.expected expected)
if(NOT actual STREQUAL expected)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.actual "${actual}")
  execute_process(COMMAND diff -u ${dir}/${name}.expected ${CMAKE_CURRENT_BINARY_DIR}/${name}.actual
    OUTPUT_VARIABLE d)
  message(FATAL_ERROR "scenario ${name}: actions differ from ${name}.expected\n${d}")
endif()
# Determinism against memory addresses and threads: the same log replayed
# with another heap layout (the allocator's per-thread cache off, so freed
# blocks come back in another order: MALLOC_CONF for jemalloc, which recon
# links, GLIBC_TUNABLES for glibc's malloc under the sanitizers) and in two
# stages on two threads (--jobs 2: bodies parsed ahead on the other thread)
# prints the same bytes. A cache keyed by an object's address fails here
# when an address comes back for other content (issue 37: a catalog update
# at the channel head planned nothing).
execute_process(COMMAND ${CMAKE_COMMAND} -E env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_CONF=tcache:false
  ${RECON} replay ${SCENARIO} ${args} --jobs 2
  OUTPUT_VARIABLE relaid ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon replay --jobs 2 (another heap layout) exited ${rc}: ${err}")
endif()
if(NOT relaid STREQUAL expected)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.relaid "${relaid}")
  execute_process(COMMAND diff -u ${dir}/${name}.expected ${CMAKE_CURRENT_BINARY_DIR}/${name}.relaid
    OUTPUT_VARIABLE d)
  message(FATAL_ERROR "scenario ${name}: replayed in two stages (--jobs 2) with another heap layout "
    "(MALLOC_CONF=tcache:false) the actions differ from ${name}.expected: an output depends on a memory "
    "address or on which thread parsed a body\n${d}")
endif()
