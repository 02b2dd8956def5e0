# Used by scripts/fuzz as CMAKE_PROJECT_INCLUDE when tests/CMakeLists.txt does not (yet) add
# tests/fuzz: adds this folder at the end of the top-level CMakeLists.txt, after the Strata
# libraries exist.
set(STRATA_FUZZ_STANDALONE_DIR "${CMAKE_CURRENT_LIST_DIR}")
enable_testing()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}"
               CALL add_subdirectory "${STRATA_FUZZ_STANDALONE_DIR}" "${CMAKE_BINARY_DIR}/tests/fuzz")
