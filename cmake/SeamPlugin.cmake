# seam_add_plugin(<target> SOURCES <file>... [LIBS <library>...] [OUTPUT_NAME <name>]
#                 [EXPORT_MAP <file.lds>] [EXPORT_TEST <test name>])
#
# Builds a plugin shared library (lib<OUTPUT_NAME or target>.so) the way every seam plugin
# is built: the plugin kit (src/plugins/common) linked in, hidden visibility, the export
# map that keeps every symbol but GetPjrtApi local (src/plugins/common/exports.lds), no
# undefined symbols, and seam's warnings. It also adds the ctest test EXPORT_TEST (default
# <target>_exports_only_GetPjrtApi), which fails unless `nm -D --defined-only` lists exactly
# GetPjrtApi. A plugin that passes its own EXPORT_MAP exports more on purpose (the test
# plugins) and gets no such test.
#
# The same file serves this tree and an installed seam (find_package(seam) includes it from
# lib/cmake/seam, where exports.lds lies beside it): there the kit is seam::plugin_kit and
# the warnings are the plugin project's own.
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/exports.lds)
  set(SEAM_PLUGIN_EXPORT_MAP ${CMAKE_CURRENT_LIST_DIR}/exports.lds)
else()
  set(SEAM_PLUGIN_EXPORT_MAP ${CMAKE_CURRENT_LIST_DIR}/../src/plugins/common/exports.lds)
endif()
set(SEAM_CHECK_EXPORTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_exports.cmake)

function(seam_add_plugin target)
  cmake_parse_arguments(P "" "OUTPUT_NAME;EXPORT_MAP;EXPORT_TEST" "SOURCES;LIBS" ${ARGN})
  if(NOT P_SOURCES)
    message(FATAL_ERROR "seam_add_plugin(${target}): SOURCES is required")
  endif()
  set(export_map ${SEAM_PLUGIN_EXPORT_MAP})
  if(P_EXPORT_MAP)
    get_filename_component(export_map ${P_EXPORT_MAP} ABSOLUTE)
  endif()
  add_library(${target} SHARED ${P_SOURCES})
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                        LINK_DEPENDS ${export_map})
  if(P_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${P_OUTPUT_NAME})
  endif()
  if(TARGET seam_plugin_kit)
    set(kit seam_plugin_kit)
  else()
    set(kit seam::plugin_kit)
  endif()
  target_link_libraries(${target} PRIVATE ${P_LIBS} ${kit})
  target_link_options(${target} PRIVATE -Wl,--version-script=${export_map} -Wl,--no-undefined)
  if(COMMAND seam_warnings)
    seam_warnings(${target})
  endif()
  if(NOT P_EXPORT_MAP)
    set(test_name ${target}_exports_only_GetPjrtApi)
    if(P_EXPORT_TEST)
      set(test_name ${P_EXPORT_TEST})
    endif()
    add_test(NAME ${test_name}
             COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:${target}> -P ${SEAM_CHECK_EXPORTS_SCRIPT})
  endif()
endfunction()
