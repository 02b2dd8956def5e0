# Install rules (included by the top-level CMakeLists.txt after every library is defined):
#
#   cmake --install build --prefix PREFIX
#
# puts in PREFIX
#   lib/libstrata_*.a                       the static libraries
#   include/strata/<folder>/...h            every header, at its path from the repository root
#   lib/cmake/Strata/                       StrataConfig.cmake, its version file, the exported
#                                           targets Strata::sim ... Strata::builtin, and a copy of
#                                           FindSystemC.cmake for find_dependency(SystemC)
#   share/strata/configs/{hardware,tech}/   the shipped presets and technology tables
#   bin/strata                              the CLI
#
# so that another project's find_package(Strata) builds against it (docs/library.md;
# tests/external-platform is the example CI builds). The libraries' headers include one another
# as "sim/registry.h", so the installed include directory is include/strata, not include/.
include(CMakePackageConfigHelpers)

set(STRATA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
set(STRATA_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/strata)
set(STRATA_INSTALL_CONFIGDIR ${CMAKE_INSTALL_DATADIR}/strata/configs)

# Exported as Strata::<folder>: Strata::sim (the kernel), Strata::app (sim/app/: command line,
# runner, sweeps, validation), Strata::models, Strata::workloads, Strata::memory, Strata::rtl,
# Strata::accelerators, and Strata::builtin (every kind, register_builtin_kinds).
set(strata_installed_libraries strata_sim strata_app strata_models strata_workloads strata_memory strata_rtl strata_accelerators
                               strata_builtin)
foreach(lib ${strata_installed_libraries})
  string(REPLACE "strata_" "" export_name ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
set_target_properties(strata PROPERTIES EXPORT_NAME strata)

install(TARGETS ${strata_installed_libraries} strata
  EXPORT StrataTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT StrataTargets NAMESPACE Strata:: DESTINATION ${STRATA_INSTALL_CMAKEDIR})

foreach(folder sim models workloads memory rtl accelerators)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${STRATA_INSTALL_INCLUDEDIR}/${folder}
          FILES_MATCHING PATTERN "*.h")
endforeach()

# The presets (their `extends:` chains stay inside configs/hardware) and the technology tables
# (compiled into the library as well; here as the files a table of one's own may `scale_from:`).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/hardware ${PROJECT_SOURCE_DIR}/configs/tech
        DESTINATION ${STRATA_INSTALL_CONFIGDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/StrataConfig.cmake.in
  ${PROJECT_BINARY_DIR}/StrataConfig.cmake
  INSTALL_DESTINATION ${STRATA_INSTALL_CMAKEDIR}
  PATH_VARS STRATA_INSTALL_INCLUDEDIR STRATA_INSTALL_CONFIGDIR)
# 0.x: a minor release may change the C++ surface (docs/library.md, What is not stable).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/StrataConfig.cmake ${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindSystemC.cmake
        DESTINATION ${STRATA_INSTALL_CMAKEDIR})
