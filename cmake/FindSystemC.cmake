# FindSystemC: locates Accellera SystemC and defines the imported target SystemC::systemc.
#
# Debian's libsystemc-dev ships no CMake package, only systemc.pc, so we try, in order:
# a SystemC CMake config package, pkg-config, and a plain header/library search.
#
# Debian's library is compiled as C++17 and exports the ABI guard symbol
# sc_api_version_2_3_4_cxx201703L; every translation unit that includes SystemC must agree,
# so SC_CPLUSPLUS is pinned on the imported target (SystemC_CXX_STANDARD overrides it).

if(TARGET SystemC::systemc)
  set(SystemC_FOUND TRUE)
  return()
endif()

set(SystemC_CXX_STANDARD "201703L" CACHE STRING "C++ standard (__cplusplus value) libsystemc was built with")

find_package(SystemCLanguage CONFIG QUIET)
if(SystemCLanguage_FOUND AND TARGET SystemC::systemc)
  set(SystemC_FOUND TRUE)
  return()
endif()

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_SYSTEMC QUIET systemc)
endif()

find_path(SystemC_INCLUDE_DIR NAMES systemc systemc.h HINTS ${PC_SYSTEMC_INCLUDE_DIRS} $ENV{SYSTEMC_HOME}/include)
find_library(SystemC_LIBRARY NAMES systemc HINTS ${PC_SYSTEMC_LIBRARY_DIRS} $ENV{SYSTEMC_HOME}/lib $ENV{SYSTEMC_HOME}/lib-linux64)
set(SystemC_VERSION ${PC_SYSTEMC_VERSION})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SystemC REQUIRED_VARS SystemC_LIBRARY SystemC_INCLUDE_DIR VERSION_VAR SystemC_VERSION)

if(SystemC_FOUND)
  add_library(SystemC::systemc UNKNOWN IMPORTED)
  set_target_properties(SystemC::systemc PROPERTIES
    IMPORTED_LOCATION "${SystemC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SystemC_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "SC_CPLUSPLUS=${SystemC_CXX_STANDARD};SC_INCLUDE_DYNAMIC_PROCESSES")
  find_package(Threads REQUIRED)
  set_property(TARGET SystemC::systemc APPEND PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(SystemC_INCLUDE_DIR SystemC_LIBRARY)
