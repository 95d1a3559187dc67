# A program linked with seam_core only: ldd lists no BLAS or oneDNN library (while the same
# check on a program linked with seam finds them, so the check can fail), it runs a step
# through the CPU plugin loaded by path, and PJRT_DEVICE=CPU is refused with a message that
# says why. Arguments: -DPROGRAM= (core only) -DFULL= (linked with seam) -DPLUGIN= (the .so).
set(blas_pattern "openblas|libblas|libdnnl|libmkl")

execute_process(COMMAND ldd ${FULL} OUTPUT_VARIABLE full_ldd RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT full_ldd MATCHES "${blas_pattern}")
  message(FATAL_ERROR "control failed: ldd of ${FULL} (linked with seam) shows no BLAS library, "
                      "so the check below proves nothing:\n${full_ldd}")
endif()
execute_process(COMMAND ldd ${PROGRAM} OUTPUT_VARIABLE core_ldd RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd ${PROGRAM} failed")
endif()
if(core_ldd MATCHES "${blas_pattern}")
  message(FATAL_ERROR "${PROGRAM} is linked with seam_core only, yet ldd lists BLAS/oneDNN:\n${core_ldd}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env PJRT_DEVICE=LIBRARY PJRT_DYNAMIC_PLUGINS=1
                        PJRT_LIBRARY_PATH=${PLUGIN} ${PROGRAM}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "core-only: ok")
  message(FATAL_ERROR "the step through ${PLUGIN} failed (rc ${rc}):\n${out}${err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env PJRT_DEVICE=CPU ${PROGRAM}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT out MATCHES "PJRT_DEVICE=CPU: this program has no in-process CPU plugin")
  message(FATAL_ERROR "PJRT_DEVICE=CPU in a seam_core program: expected a clear refusal, got rc ${rc}:\n${out}${err}")
endif()
message(STATUS "core-only program: no BLAS in ldd, a step through the plugin by path, CPU refused")
