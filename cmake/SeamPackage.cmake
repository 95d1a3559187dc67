# The public libraries, their installation and the packages that describe them
# (docs/install.md).
#
#   seam_core  (seam::core)  the public API (include/seam/*.h: tensor, nn, optim, data,
#              checkpoint, metrics, distributed) and the runtime, without any plugin or BLAS
#              library: devices come from plugins loaded by path (PJRT_DEVICE with
#              PJRT_DYNAMIC_PLUGINS, TPU, ...);
#   seam       (seam::seam)  seam_core plus the CPU plugin linked into the process and its
#              registration as PJRT_DEVICE=CPU: what most programs link.
#
# SEAM_BUILD_SHARED (default): libseam_core.so and libseam.so, made from the object files of
# the component archives (nothing is compiled twice); libseam.so holds the CPU plugin and
# the registration object and needs libseam_core.so. Otherwise the archives themselves are
# installed and the two targets link them in order, the registration object whole.
#
# Inside this tree, programs that also reach internals (src/...) link the archives through
# seam_core_internal / seam_internal instead: one program never holds both a shared library
# and the archives it was made from (two copies of a registry would disagree).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(seam_core_internal INTERFACE)
target_link_libraries(seam_core_internal INTERFACE seam_lazy seam_nn seam_data seam_checkpoint)
add_library(seam_internal INTERFACE)
target_link_libraries(seam_internal INTERFACE seam_core_internal seam_cpu_in_process)

# The runtime's archives are every one of src/runtime but the remote server's
# (seam_remote_server), which only `seam serve` links (docs/architecture.md).
set(seam_core_archives seam_base seam_metrics seam_trace seam_ir seam_stablehlo_emit
                       seam_abi_types seam_client seam_job_secret seam_distributed
                       seam_pjrt_client seam_remote_client
                       seam_runtime seam_lazy seam_nn seam_data seam_safetensors seam_checkpoint)
set(seam_cpu_archives seam_plugin_kit seam_pjrt_cpu)

if(SEAM_BUILD_SHARED)
  set(core_objects "")
  foreach(archive IN LISTS seam_core_archives)
    list(APPEND core_objects $<TARGET_OBJECTS:${archive}>)
  endforeach()
  add_library(seam_core SHARED ${core_objects})
  # The archives after their own objects add nothing but their dependencies (absl, zlib,
  # libseam_proto.so, ...).
  target_link_libraries(seam_core PRIVATE seam_lazy seam_nn seam_data seam_checkpoint)

  add_library(seam SHARED $<TARGET_OBJECTS:seam_plugin_kit> $<TARGET_OBJECTS:seam_pjrt_cpu>
                          $<TARGET_OBJECTS:seam_cpu_registration>)
  # libseam_core.so first: it defines everything the CPU plugin's archives share with the
  # core (base, ir, abi), so no member of those archives is copied into libseam.so.
  target_link_libraries(seam PUBLIC seam_core PRIVATE seam_pjrt_cpu)
  # Nothing a program calls lives in libseam.so (the plugin registers itself when the
  # library loads): keep it needed where the toolchain links --as-needed by default.
  target_link_options(seam INTERFACE LINKER:--no-as-needed)
  foreach(lib seam_core seam seam_proto)
    set_target_properties(${lib} PROPERTIES INSTALL_RPATH "$ORIGIN")
  endforeach()
  set_target_properties(seam_core seam PROPERTIES
                        VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set(seam_exported seam_core seam)
else()
  # The registration object as an archive of its own, linked whole by programs.
  add_library(seam_cpu_registration_archive STATIC $<TARGET_OBJECTS:seam_cpu_registration>)
  target_link_libraries(seam_cpu_registration_archive PUBLIC seam_runtime seam_pjrt_cpu)
  set_target_properties(seam_cpu_registration_archive PROPERTIES
                        OUTPUT_NAME seam_cpu_registration)
  add_library(seam_core INTERFACE)
  target_link_libraries(seam_core INTERFACE seam_lazy seam_nn seam_data seam_checkpoint)
  add_library(seam INTERFACE)
  # (The exported name is spelled out: install(EXPORT) does not rename targets inside
  # $<LINK_LIBRARY>.)
  target_link_libraries(seam INTERFACE seam_core
    "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,seam_cpu_registration_archive>>"
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,seam::seam_cpu_registration_archive>>")
  set(seam_exported seam_core seam seam_cpu_registration_archive ${seam_core_archives}
                    ${seam_cpu_archives} seam_proto)
endif()
# The plugin kit, for plugins built outside this tree (docs/plugins.md, "Plugins outside the
# tree"): seam::plugin_kit (src/plugins/common) with seam::base under it, and seam::ir (the IR's
# types, parser and verifier) for plugins that compile seam's IR. Archives in both modes (a
# plugin is one self-contained library); their headers keep their in-tree paths
# ("src/plugins/common/entry.h") under include/seam/internal and are not a stable API.
set(seam_kit_archives seam_plugin_kit seam_base seam_ir)
set_target_properties(seam_plugin_kit PROPERTIES EXPORT_NAME plugin_kit)
set_target_properties(seam_base PROPERTIES EXPORT_NAME base)
set_target_properties(seam_ir PROPERTIES EXPORT_NAME ir)
foreach(lib IN LISTS seam_kit_archives)
  target_include_directories(${lib} INTERFACE
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/seam/internal>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
if(SEAM_BUILD_SHARED)
  list(APPEND seam_exported ${seam_kit_archives})
endif()
set_target_properties(seam_core PROPERTIES EXPORT_NAME core)
foreach(lib seam_core seam)
  get_target_property(type ${lib} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  else()
    set(scope PUBLIC)
  endif()
  target_include_directories(${lib} ${scope} $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${lib} ${scope} cxx_std_20)
endforeach()
add_library(seam::core ALIAS seam_core)
add_library(seam::seam ALIAS seam)

# --- installation ---
set(seam_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/seam)
install(TARGETS ${seam_exported} EXPORT seamTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(SEAM_BUILD_SHARED)
  install(TARGETS seam_proto LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# The CPU plugin as a library loaded by path (PJRT_LIBRARY_PATH, seam plugin check).
install(TARGETS seam_pjrt_cpu_plugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/seam DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir src/base src/abi src/ir src/plugins/common)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/seam/internal/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.inc")
endforeach()
# seam_add_plugin() and what it needs, beside the package's config file.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/SeamPlugin.cmake ${PROJECT_SOURCE_DIR}/cmake/check_exports.cmake
              ${PROJECT_SOURCE_DIR}/src/plugins/common/exports.lds
        DESTINATION ${seam_cmake_dir})
install(EXPORT seamTargets NAMESPACE seam:: DESTINATION ${seam_cmake_dir})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/seamConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/seamConfig.cmake
                              INSTALL_DESTINATION ${seam_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a new minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/seamConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/seamConfig.cmake
              ${PROJECT_BINARY_DIR}/package/seamConfigVersion.cmake
        DESTINATION ${seam_cmake_dir})

# pkg-config: seam.pc (with the CPU plugin) and seam-core.pc, relocatable (${pcfiledir}).
file(RELATIVE_PATH SEAM_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" SEAM_PC_PREFIX_FROM_PCDIR "${SEAM_PC_PREFIX_FROM_PCDIR}")
if(SEAM_BUILD_SHARED)
  set(SEAM_PC_CORE_LIBS "-lseam_core")
  set(SEAM_PC_CPU_LIBS "-Wl,--no-as-needed -lseam")
  set(SEAM_PC_CORE_REQUIRES "")
  set(SEAM_PC_CPU_REQUIRES "")
else()
  # Archives: their dependencies are needed by every program, not only static ones. Named
  # by file (-l:lib<name>.a): libseam_pjrt_cpu.so next to them is the plugin loaded by path.
  set(SEAM_PC_CORE_LIBS "")
  foreach(archive seam_checkpoint seam_safetensors seam_data seam_nn seam_lazy seam_runtime
                  seam_pjrt_client seam_remote_client seam_distributed seam_job_secret
                  seam_client seam_trace seam_metrics seam_abi_types seam_stablehlo_emit seam_ir
                  seam_base)
    string(APPEND SEAM_PC_CORE_LIBS " -l:lib${archive}.a")
  endforeach()
  string(APPEND SEAM_PC_CORE_LIBS " -lseam_proto -ldl -pthread")
  set(SEAM_PC_CORE_REQUIRES "Requires: zlib grpc++ protobuf absl_status absl_statusor \
absl_strings absl_str_format absl_flat_hash_map absl_flat_hash_set absl_inlined_vector absl_span")
  set(SEAM_PC_CPU_LIBS "-Wl,--whole-archive -l:libseam_cpu_registration.a -Wl,--no-whole-archive \
-l:libseam_pjrt_cpu.a -l:libseam_plugin_kit.a -lgloo")
  if(SEAM_HAVE_ONEDNN)
    string(APPEND SEAM_PC_CPU_LIBS " -ldnnl -fopenmp")
  endif()
  set(SEAM_PC_CPU_REQUIRES ", openblas")
endif()
foreach(pc seam seam-core)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/package/${pc}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
