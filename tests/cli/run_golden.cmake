# Runs one recon command and checks its exit code, its stdout against a
# golden file (when GOLDEN is set) and its stderr against a regex (when
# STDERR_MATCHES is set).
#   -DRECON=path -DARGS="a|b|c" -DWORKDIR=dir -DRC=0 [-DGOLDEN=file] [-DSTDERR_MATCHES=regex]
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${RECON} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "recon ${ARGS}: exit ${rc}, expected ${RC}\nstderr: ${err}")
endif()
if(DEFINED STDERR_MATCHES AND NOT err MATCHES "${STDERR_MATCHES}")
  message(FATAL_ERROR "recon ${ARGS}: stderr does not match \"${STDERR_MATCHES}\":\n${err}")
endif()
if(DEFINED GOLDEN)
  file(READ ${GOLDEN} expected)
  if(NOT out STREQUAL expected)
    get_filename_component(name ${GOLDEN} NAME)
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.actual "${out}")
    execute_process(COMMAND diff -u ${GOLDEN} ${CMAKE_CURRENT_BINARY_DIR}/${name}.actual OUTPUT_VARIABLE d)
    message(FATAL_ERROR "recon ${ARGS}: stdout differs from ${GOLDEN}\n${d}")
  endif()
endif()
