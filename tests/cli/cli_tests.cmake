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

# map / space
set(HW64 ${CONFIGS}/hardware/maeri-64.yaml)
set(TINY ${CONFIGS}/workloads/tiny.yaml)
maeri_cli_test(map_tiny 0 --stdout-contains "total over 4 layers"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} -o ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml)
maeri_cli_test(map_tile_breaks_eq1 2 --stderr-contains "Eq. 1: T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = 108"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,3,4,1,1,1)
maeri_cli_test(map_tile_exceeds_dimension 2 --stderr-contains "bound: T_C = 4 must be between 1 and C = 3"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 1,1,4,1,1,1,1)
maeri_cli_test(map_tile_malformed 2 --stderr-contains "expected seven comma-separated integers"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3)
maeri_cli_test(map_tile_needs_layer 2 --stderr-contains "add --layer NAME"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --tile 1,1,1,1,1,1,1)
maeri_cli_test(map_unknown_layer 2 --stderr-contains "has no layer 'conv9' (it has: conv1, conv2, conv3_1x1, fc)"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv9)
maeri_cli_test(map_bad_objective 1 $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --objective speed)
maeri_cli_test(space_table2 0 --stdout-contains "partial-sum-bound"
  $<TARGET_FILE:maeri> space --hardware ${CONFIGS}/hardware/maeri-512.yaml --workload ${CONFIGS}/workloads/mrna-table2.yaml)
foreach(sub space map bench)
  maeri_cli_test(help_${sub} 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> ${sub} --help)
endforeach()
