# The agent end to end on the simulated cluster with the embedded RocksDB
# store: it must converge, and a replay of
# the log it wrote must reproduce exactly the actions it recorded.
#   -DRECON=path/to/recon -DSCENARIO=path -DSTORE=dir [-DARGS=a|b (more agent arguments)]
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE_RECURSE ${STORE})
execute_process(COMMAND ${RECON} agent --cluster sim --scenario ${SCENARIO} --store ${STORE} --until-converged ${args}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon agent exited ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "converged after")
  message(FATAL_ERROR "agent did not report convergence:\n${out}")
endif()
execute_process(COMMAND ${RECON} replay --check --store ${STORE}
  OUTPUT_VARIABLE check RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT check MATCHES "^ok: ")
  message(FATAL_ERROR "replay --check after the agent run failed (${rc}):\n${check}")
endif()
# A restarted agent on a store written against a simulated cluster refuses
# clearly instead of re-applying anything.
execute_process(COMMAND ${RECON} agent --cluster sim --scenario ${SCENARIO} --store ${STORE} --until-converged ${args}
  OUTPUT_VARIABLE out2 ERROR_VARIABLE err2 RESULT_VARIABLE rc2)
if(rc2 EQUAL 0 OR NOT err2 MATCHES "does not survive a restart")
  message(FATAL_ERROR "restart on a sim store should be refused clearly (${rc2}):\n${err2}")
endif()
file(REMOVE_RECURSE ${STORE})
