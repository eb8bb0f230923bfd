# Options given on the command line are recorded in the log and take effect
# where the log says, so a replay of a sim run reproduces it exactly (a
# regression: they used to be applied to the live engine before the initial
# list, which a replay could not see).
#   -DRECON=path/to/recon -DSCENARIO=path -DSTORE=dir -DOPTION=k=v
file(REMOVE_RECURSE ${STORE})
execute_process(COMMAND ${RECON} sim --scenario ${SCENARIO} --store ${STORE} --until-converged --set ${OPTION}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon sim exited ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${RECON} replay --check --store ${STORE} OUTPUT_VARIABLE check RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT check MATCHES "^ok: ")
  message(FATAL_ERROR "replay --check after a sim run with --set ${OPTION} failed (${rc}):\n${check}")
endif()
file(REMOVE_RECURSE ${STORE})
