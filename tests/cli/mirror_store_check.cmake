# mirror-list --store reads a store's olm/catalog Content (kept once, by
# digest) and Subscriptions exactly as --log reads the JSONL they came from.
#   -DRECON=path -DLOG=file.jsonl -DGOLDEN=file -DSTORE=dir
file(REMOVE_RECURSE ${STORE})
execute_process(COMMAND ${RECON} log import ${LOG} --store ${STORE} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon log import exited ${rc}: ${err}")
endif()
execute_process(COMMAND ${RECON} mirror-list --store ${STORE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(REMOVE_RECURSE ${STORE})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recon mirror-list --store exited ${rc}: ${err}")
endif()
file(READ ${GOLDEN} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "mirror-list --store differs from ${GOLDEN}:\n${out}")
endif()
