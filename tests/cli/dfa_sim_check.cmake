# The DisconnectedFriendlyApp sim scenario converges with exactly the writes
# its story needs, and a replay of the stored log recomputes them.
#   -DRECON=path/to/recon -DSCENARIO=path -DSTORE=dir
file(REMOVE_RECURSE ${STORE})
execute_process(COMMAND ${RECON} sim --scenario ${SCENARIO} --store ${STORE} --until-converged --domains disconnected
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon sim exited ${rc}\n${out}\n${err}")
endif()
# 4 operand creates + 1 re-create of the deleted one; updates: the drifted
# image, the replicas change, 4 for the operator's new related image;
# status: 2 at start, the replicas change (generation), 2 for the new image.
if(NOT out MATCHES "converged after" OR NOT out MATCHES "actions 16: create 5, update 6, updateStatus 5\n")
  message(FATAL_ERROR "unexpected sim summary:\n${out}")
endif()
execute_process(COMMAND ${RECON} replay --check --store ${STORE} --domains disconnected
  OUTPUT_VARIABLE check RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT check MATCHES "^ok: 16 recomputed actions match")
  message(FATAL_ERROR "replay --check after the DFA sim run failed (${rc}):\n${check}")
endif()
execute_process(COMMAND ${RECON} log export --store ${STORE} OUTPUT_VARIABLE log)
# Both Deployments of the surviving instance end with the mirrored image.
foreach(app busybox sleeper)
  if(NOT log MATCHES "\"name\":\"${app}-demo\"[^\n]*mirror\\.example\\.com:5000/fedora/fedora@sha256")
    message(FATAL_ERROR "${app}-demo never showed the mirrored image")
  endif()
endforeach()
file(REMOVE_RECURSE ${STORE})
