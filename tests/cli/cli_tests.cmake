# CLI tests: exit codes and key output lines of `maeri` subcommands (documented in docs/cli.md).
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh)
set(CONFIGS ${PROJECT_SOURCE_DIR}/configs)

function(maeri_cli_test name expected_exit)
  add_test(NAME cli_${name} COMMAND ${EXPECT} ${expected_exit} ${ARGN})
  set_tests_properties(cli_${name} PROPERTIES LABELS cli)
endfunction()

maeri_cli_test(version 0 --stdout-contains "maeri ${PROJECT_VERSION}" $<TARGET_FILE:maeri> --version)
maeri_cli_test(help 0 --stdout-contains "validate" $<TARGET_FILE:maeri> --help)
maeri_cli_test(no_subcommand 1 $<TARGET_FILE:maeri>)
maeri_cli_test(unknown_option 1 $<TARGET_FILE:maeri> show --hardwre x)
file(GLOB shipped_configs ${CONFIGS}/hardware/*.yaml ${CONFIGS}/workloads/*.yaml)
maeri_cli_test(validate_shipped_configs 0 $<TARGET_FILE:maeri> validate ${shipped_configs})
maeri_cli_test(validate_missing_file 2 --stderr-contains "nope.yaml: cannot open file"
  $<TARGET_FILE:maeri> validate ${CONFIGS}/nope.yaml)
maeri_cli_test(validate_wrong_kind 2 --stderr-contains "field 'kind': expected 'hardware'"
  $<TARGET_FILE:maeri> show --hardware ${CONFIGS}/workloads/tiny.yaml)
maeri_cli_test(show_structure 0 --stdout-contains "forwarding links       26"
  $<TARGET_FILE:maeri> show --hardware ${CONFIGS}/hardware/maeri-64.yaml)
foreach(sub validate show)
  maeri_cli_test(help_${sub} 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> ${sub} --help)
endforeach()
