# A row of src/ir/ops.def without its StableHLO lowering must not build. Run by ctest
# (op_table_missing_stablehlo): compiles src/ir/program.cc, syntax only, with
# -DSEAM_TEST_MISSING_STABLEHLO=1, which adds a row written without the StableHLO column
# (the preprocessor refuses the argument count), and with =2, a row whose column is ""
# (program.cc's static_assert names the row). program.cc as it is compiles (the
# op_table_missing_combiner test checks that).
# Usage: cmake -DCXX=<compiler> -DSOURCE_DIR=<checkout> -P missing_stablehlo.cmake
set(args -std=c++20 -fsyntax-only -I${SOURCE_DIR} -I${SOURCE_DIR}/include
         ${SOURCE_DIR}/src/ir/program.cc)
execute_process(COMMAND ${CXX} -DSEAM_TEST_MISSING_STABLEHLO=1 ${args} RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a row without its StableHLO column compiled")
endif()
# g++: macro "SEAM_IR_OP" requires 7 arguments, but only 6 given; clang: too few arguments
# provided to function-like macro invocation.
if(NOT err MATCHES "requires 7 arguments, but only 6 given|too few arguments provided to function-like macro")
  message(FATAL_ERROR "the build failed, but not at the row's argument count:\n${err}")
endif()
execute_process(COMMAND ${CXX} -DSEAM_TEST_MISSING_STABLEHLO=2 ${args} RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a row with an empty StableHLO column compiled")
endif()
if(NOT err MATCHES "kMissingStableHlo has no StableHLO lowering")
  message(FATAL_ERROR "the build failed, but not at the StableHLO check:\n${err}")
endif()
message(STATUS "a row without its StableHLO lowering does not build")
