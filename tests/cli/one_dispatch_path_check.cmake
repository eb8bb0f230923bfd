# `recon sim` and `recon agent --cluster sim` are one dispatch path (issue
# 20): the same scenario run both ways gives the same log, event for event,
# and each run's recorded actions are what a replay of its log gives. Secret values are redacted under each
# store's own key, so the markers' hashes are compared as "a marker".
#   -DRECON=path/to/recon -DSCENARIO=path -DWORK=dir
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# A scenario that does not converge within the hour exits 1 from `recon
# sim` and from the agent alike; anything else is a failure.
execute_process(COMMAND ${RECON} sim --scenario ${SCENARIO} --store ${WORK}/sim --until-converged --max-time 1h
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND NOT (rc EQUAL 1 AND out MATCHES "NOT converged"))
  message(FATAL_ERROR "recon sim exited ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${RECON} agent --cluster sim --scenario ${SCENARIO} --store ${WORK}/agent --until-converged --max-time 1h
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND NOT (rc EQUAL 1 AND out MATCHES "stopped after"))
  message(FATAL_ERROR "recon agent --cluster sim exited ${rc}\n${out}\n${err}")
endif()
foreach(run sim agent)
  execute_process(COMMAND ${RECON} log export --store ${WORK}/${run} OUTPUT_VARIABLE log_${run} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "log export of the ${run} run failed")
  endif()
  string(REGEX REPLACE "recon-redacted:hmac-sha256:[0-9a-f]+" "recon-redacted" log_${run} "${log_${run}}")
  # The actions each run recorded are the ones its log gives.
  execute_process(COMMAND ${RECON} replay --check --store ${WORK}/${run} OUTPUT_VARIABLE check RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "replay --check of the ${run} run failed:\n${check}")
  endif()
endforeach()
if(log_sim STREQUAL "")
  message(FATAL_ERROR "the sim run logged nothing")
endif()
if(NOT log_sim STREQUAL log_agent)
  file(WRITE ${WORK}/sim.jsonl "${log_sim}")
  file(WRITE ${WORK}/agent.jsonl "${log_agent}")
  execute_process(COMMAND diff ${WORK}/sim.jsonl ${WORK}/agent.jsonl OUTPUT_VARIABLE d)
  string(SUBSTRING "${d}" 0 3000 d)
  message(FATAL_ERROR "the logs of recon sim and recon agent --cluster sim differ:\n${d}")
endif()
file(REMOVE_RECURSE ${WORK})
