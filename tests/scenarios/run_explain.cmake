# Runs one scenario through `recon explain`, exactly as a user would, and
# compares stdout with the golden <name>.explain.expected file.
#   -DRECON=path/to/recon -DSCENARIO=path/to/name.jsonl -DDOMAIN=samples
# The scenario's <name>.args (written for `recon replay`) are reused: its
# --set pairs apply; --domains is replaced by `--domain ${DOMAIN}`.
get_filename_component(dir ${SCENARIO} DIRECTORY)
get_filename_component(name ${SCENARIO} NAME_WE)
set(args)
if(EXISTS ${dir}/${name}.args)
  file(STRINGS ${dir}/${name}.args raw)
  set(skip_next OFF)
  foreach(a ${raw})
    if(skip_next)
      set(skip_next OFF)
    elseif(a STREQUAL "--domains")
      set(skip_next ON)
    else()
      list(APPEND args ${a})
    endif()
  endforeach()
endif()
execute_process(COMMAND ${RECON} explain ${SCENARIO} --domain ${DOMAIN} ${args}
  OUTPUT_VARIABLE actual ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon explain exited ${rc}: ${err}")
endif()
set(golden ${dir}/${name}.explain.expected)
if(NOT EXISTS ${golden})
  message(FATAL_ERROR "missing ${golden} (write it from `recon explain`, then review it)")
endif()
file(READ ${golden} expected)
if(NOT actual STREQUAL expected)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.explain.actual "${actual}")
  execute_process(COMMAND diff -u ${golden} ${CMAKE_CURRENT_BINARY_DIR}/${name}.explain.actual
    OUTPUT_VARIABLE d)
  message(FATAL_ERROR "explain ${name}: timeline differs from ${name}.explain.expected\n${d}")
endif()
