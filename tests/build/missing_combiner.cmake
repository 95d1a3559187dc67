# A reduction row of src/ir/ops.def without its combiner must not build. Run by ctest
# (op_table_missing_combiner): compiles src/ir/program.cc twice, syntax only (about two
# seconds): as it is, which must succeed, and with -DSEAM_TEST_MISSING_COMBINER, which adds
# the row `kReduceMissingCombiner` written SEAM_IR_OP (no combiner column) at the end of
# ops.def, and must fail at program.cc's static_assert naming that row.
# Usage: cmake -DCXX=<compiler> -DSOURCE_DIR=<checkout> -P missing_combiner.cmake
set(args -std=c++20 -fsyntax-only -I${SOURCE_DIR} -I${SOURCE_DIR}/include
         ${SOURCE_DIR}/src/ir/program.cc)
execute_process(COMMAND ${CXX} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "src/ir/program.cc does not compile as it is:\n${err}")
endif()
execute_process(COMMAND ${CXX} -DSEAM_TEST_MISSING_COMBINER ${args} RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a reduction row without a combiner compiled")
endif()
if(NOT err MATCHES "kReduceMissingCombiner has shape rule Reduce, a reduction")
  message(FATAL_ERROR "the build failed, but not at the combiner check:\n${err}")
endif()
message(STATUS "a reduction row without a combiner does not build")
