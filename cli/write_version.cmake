# Writes maeri_version.hpp (cli/version.hpp.in) with the project version and the git revision of the source tree.
# Runs on every build (cli/CMakeLists.txt), so the revision follows commits without a re-configure; configure_file
# leaves the header untouched when nothing changed, so an unchanged revision recompiles nothing.
# Inputs: SOURCE_DIR, TEMPLATE, OUTPUT, MAERI_VERSION.
set(MAERI_GIT_REVISION "unknown (not built from a git checkout)")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_QUIET)
  if(status EQUAL 0 AND revision)
    set(MAERI_GIT_REVISION "${revision}")
  endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
