# The HTML report in a real browser (docs/report.md): maeri_make_report_page writes the sample report
# (tests/unit/report_sample.hpp), headless Chromium renders it, and report_in_browser.sh checks the DOM it built and
# that its screenshot is not blank. Skipped (exit 77) only when no Chromium is installed (scripts/setup.sh installs
# Debian's `chromium`).
add_executable(maeri_make_report_page cli/make_report_page.cpp unit/report_sample.cpp)
target_include_directories(maeri_make_report_page PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(maeri_make_report_page PRIVATE maeri_report maeri_warnings)
add_test(NAME cli_report_in_browser
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_in_browser.sh sample $<TARGET_FILE:maeri_make_report_page>
          ${CMAKE_CURRENT_BINARY_DIR}/report-in-browser)
# The main job's own page: `maeri run --report`.
add_test(NAME cli_report_run_in_browser
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_in_browser.sh run $<TARGET_FILE:maeri>
          ${CMAKE_CURRENT_BINARY_DIR}/report-run-in-browser)
add_test(NAME cli_report_map_in_browser
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_in_browser.sh map $<TARGET_FILE:maeri>
          ${CMAKE_CURRENT_BINARY_DIR}/report-map-in-browser)
set_tests_properties(cli_report_in_browser cli_report_run_in_browser cli_report_map_in_browser PROPERTIES LABELS cli SKIP_RETURN_CODE 77
                     TIMEOUT 900 ENVIRONMENT MAERI_FABRIC_CACHE=${CMAKE_BINARY_DIR}/fabric-cache)
