# CLI tests: exit codes and key output lines of `maeri` subcommands (documented in docs/cli.md).
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh)
set(CONFIGS ${PROJECT_SOURCE_DIR}/configs)

# Fabrics built on demand go to a cache in the build tree, never to the user's ~/.cache.
set(FABRIC_CACHE ${CMAKE_BINARY_DIR}/fabric-cache)
function(maeri_cli_test name expected_exit)
  add_test(NAME cli_${name} COMMAND ${EXPECT} ${expected_exit} ${ARGN})
  set_tests_properties(cli_${name} PROPERTIES LABELS cli ENVIRONMENT MAERI_FABRIC_CACHE=${FABRIC_CACHE})
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
# Fusion by default on a network: the search's statistics and the network's compulsory DRAM; --no-fusion maps
# every layer alone (the JSON without "fusion", the mapping file without fused_groups).
maeri_cli_test(map_fusion_report 0 --stdout-contains "network compulsory DRAM (inputs, weights, outputs once): 10744 bytes"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} -o ${CMAKE_CURRENT_BINARY_DIR}/tiny.fused.yaml)
# The fused space's limits as options (scripts/fusion-gap.py measures what each costs): tiny still fuses with groups
# of 2 layers (conv1-conv2, conv3_1x1-fc) from each layer's best fabric tile; a group of 1 layer is no group (usage error, the option named).
maeri_cli_test(map_fusion_limits 0 --stdout-contains "fusion: 2 fused groups of 4 layers"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --fusion-max-layers 2 --fusion-tiles 1
  -o ${CMAKE_CURRENT_BINARY_DIR}/tiny.limits.yaml)
maeri_cli_test(map_fusion_max_layers_range 1 --stderr-contains "--fusion-max-layers: Value 1 not in range 2 to 64"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --fusion-max-layers 1)
add_test(NAME cli_map_no_fusion COMMAND sh -c "\"$1\" map --hardware \"$2\" --workload \"$3\" --no-fusion --details -o \"$4.yaml\" \
  --json \"$4.json\" | grep -q 'partial mappings made' && exit 1; ! grep -q fused_groups \"$4.yaml\" && ! grep -q '\"fusion\"' \"$4.json\""
  sh $<TARGET_FILE:maeri> ${HW64} ${TINY} ${CMAKE_CURRENT_BINARY_DIR}/tiny.no-fusion)
set_tests_properties(cli_map_no_fusion PROPERTIES LABELS cli)
maeri_cli_test(map_tile_breaks_eq1 2 --stderr-contains "Eq. 1: T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = 108"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,3,4,1,1,1)
maeri_cli_test(map_tile_exceeds_dimension 2 --stderr-contains "bound: T_C = 4 must be between 1 and C = 3"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 1,1,4,1,1,1,1)
maeri_cli_test(map_tile_malformed 2 --stderr-contains "expected seven comma-separated integers"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3)
# The two-level space end to end: map it (tiny's conv3_1x1 and fc get an SDM level), then co-simulate that mapping
# (images of format 3, every count exact: the cross-check table's error column).
maeri_cli_test(map_two_level_tiny 0 --stdout-contains "SDM tile (B_K,B_C,B_N,B_X',B_Y')"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --two-level --details
  -o ${CMAKE_CURRENT_BINARY_DIR}/tiny.two-level.mapping.yaml)
set_tests_properties(cli_map_two_level_tiny PROPERTIES FIXTURES_SETUP tiny_two_level_mapping)
maeri_cli_test(verify_two_level_tiny 0 --stdout-contains "largest cycle error: compute 0.00%"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${TINY}
  --mapping ${CMAKE_CURRENT_BINARY_DIR}/tiny.two-level.mapping.yaml)
set_tests_properties(cli_verify_two_level_tiny PROPERTIES FIXTURES_REQUIRED tiny_two_level_mapping)
maeri_cli_test(map_sdm_not_permutation 2 --stderr-contains "'KCNX' is not a permutation of K, C, N, X, Y: Y is missing"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,3,2,1,1,1 --sdm 4,3,1,10,10
  --order KCNX)
# The phase order end to end: conv1 (3 folds of C, 4 filter tiles) filters-outer, mapped, then co-simulated from
# its image (format 5) with every count exact; and its bad inputs.
maeri_cli_test(map_phase_order_tiny 0 --stdout-contains "phase order filters-outer"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,1,2,1,1,1
  --phase-order filters-outer -o ${CMAKE_CURRENT_BINARY_DIR}/tiny.filters-outer.mapping.yaml)
set_tests_properties(cli_map_phase_order_tiny PROPERTIES FIXTURES_SETUP tiny_filters_outer_mapping)
maeri_cli_test(verify_phase_order_tiny 0 --stdout-contains "largest cycle error: compute 0.00%"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${TINY} --layer conv1
  --mapping ${CMAKE_CURRENT_BINARY_DIR}/tiny.filters-outer.mapping.yaml)
set_tests_properties(cli_verify_phase_order_tiny PROPERTIES FIXTURES_REQUIRED tiny_filters_outer_mapping)
maeri_cli_test(map_phase_order_unknown 2 --stderr-contains "field '--phase-order': expected folds-outer or filters-outer, found 'k-outer'"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,1,2,1,1,1
  --phase-order k-outer)
maeri_cli_test(map_phase_order_needs_tile 2 --stderr-contains "a phase order applies to a fixed tile: add --tile"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --phase-order filters-outer)
maeri_cli_test(map_sdm_below_tile 2 --stderr-contains "SDM bound: sdm.K = 1 is smaller than the fabric tile T_K = 2"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv1 --tile 3,3,3,2,1,1,1 --sdm 1,3,1,10,10)
maeri_cli_test(map_tile_needs_layer 2 --stderr-contains "add --layer NAME"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --tile 1,1,1,1,1,1,1)
maeri_cli_test(map_unknown_layer 2 --stderr-contains "has no layer 'conv9' (it has: conv1, conv2, conv3_1x1, fc)"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer conv9)
maeri_cli_test(map_bad_objective 1 $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --objective speed)
maeri_cli_test(space_table2 0 --stdout-contains "partial-sum-bound"
  $<TARGET_FILE:maeri> space --hardware ${CONFIGS}/hardware/maeri-512.yaml --workload ${CONFIGS}/workloads/mrna-table2.yaml)
# The default search covers the raw Eq. 1 space: Table II on 64 MS maps (the partial-sum bound alone would empty
# the embedding layer's space, which the per-rule report says), and refuses only when --prune chooses that rule.
maeri_cli_test(map_table2_64_raw 0 --stdout-contains "empties the space"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${CONFIGS}/workloads/mrna-table2.yaml --details
  -o ${CMAKE_CURRENT_BINARY_DIR}/table2-64.mapping.yaml)
maeri_cli_test(map_prune_empties_space 2
  --stderr-contains "pruning rule 'partial-sum-bound' (N_partial = ceil(R/T_R)·ceil(S/T_S)·ceil(C/T_C) <= num_ms) removes the last"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${CONFIGS}/workloads/mrna-table2.yaml --layer embedding
  --prune partial-sum-bound -o ${CMAKE_CURRENT_BINARY_DIR}/unused.mapping.yaml)
maeri_cli_test(map_prune_unknown_rule 2 --stderr-contains "unknown pruning rule 'fast'"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --prune edge-divisibility,fast)
maeri_cli_test(space_prune_unknown_rule 2 --stderr-contains "unknown pruning rule 'edge'"
  $<TARGET_FILE:maeri> space --hardware ${HW64} --workload ${TINY} --prune edge)
maeri_cli_test(map_prune_rules 0 --stdout-contains "space: pruned by edge-divisibility,inference-batch"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --prune inference-batch,edge-divisibility
  -o ${CMAKE_CURRENT_BINARY_DIR}/tiny-pruned.mapping.yaml)
# What map prints and writes (tests/cli/map_report.sh): the table of a network, --details as the report was, JSON roles,
# whether the fused groups are proven.
foreach(case table_tiny table_resnet50 details_as_before json_roles proof_budget)
  add_test(NAME cli_map_report_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/map_report.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS})
  set_tests_properties(cli_map_report_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endforeach()
foreach(sub space map bench codegen verify)
  maeri_cli_test(help_${sub} 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> ${sub} --help)
endforeach()

# codegen / disasm
set(IMAGES ${CMAKE_CURRENT_BINARY_DIR}/images)
maeri_cli_test(codegen_tiny_from_workload 0 --stdout-contains "tiny.conv1.mimg"
  $<TARGET_FILE:maeri> codegen --hardware ${HW64} --workload ${TINY} -o ${IMAGES} --hex --json)
set_tests_properties(cli_codegen_tiny_from_workload PROPERTIES FIXTURES_SETUP tiny_images)
set_tests_properties(cli_map_tiny PROPERTIES FIXTURES_SETUP tiny_mapping)
maeri_cli_test(codegen_tiny_from_mapping 0 --stdout-contains "conv3_1x1"
  $<TARGET_FILE:maeri> codegen --hardware ${HW64} --mapping ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml
  -o ${CMAKE_CURRENT_BINARY_DIR}/images-from-mapping)
set_tests_properties(cli_codegen_tiny_from_mapping PROPERTIES FIXTURES_REQUIRED tiny_mapping)
maeri_cli_test(codegen_mapping_for_other_hardware 2 --stderr-contains "the mapping was made for maeri-64"
  $<TARGET_FILE:maeri> codegen --hardware ${CONFIGS}/hardware/maeri-256.yaml
  --mapping ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml -o ${CMAKE_CURRENT_BINARY_DIR}/unused)
set_tests_properties(cli_codegen_mapping_for_other_hardware PROPERTIES FIXTURES_REQUIRED tiny_mapping)
maeri_cli_test(codegen_needs_a_source 1 $<TARGET_FILE:maeri> codegen --hardware ${HW64})
maeri_cli_test(disasm_tiny 0 --stdout-contains "CONFIGURE 0"
  $<TARGET_FILE:maeri> disasm ${IMAGES}/tiny.conv1.mimg --hardware ${HW64})
maeri_cli_test(disasm_json 0 --stdout-contains "\"op\": \"LOAD_WEIGHTS\""
  $<TARGET_FILE:maeri> disasm ${IMAGES}/tiny.conv1.mimg --json)
maeri_cli_test(disasm_other_hardware 2 --stderr-contains "built for hardware 'maeri-64', not for 'maeri-256'"
  $<TARGET_FILE:maeri> disasm ${IMAGES}/tiny.conv1.mimg --hardware ${CONFIGS}/hardware/maeri-256.yaml)
maeri_cli_test(disasm_not_an_image 2 --stderr-contains "not a MAERI configuration image"
  $<TARGET_FILE:maeri> disasm ${CONFIGS}/hardware/maeri-64.yaml)
set_tests_properties(cli_disasm_tiny cli_disasm_json cli_disasm_other_hardware PROPERTIES FIXTURES_REQUIRED tiny_images)

# run / verify: co-simulation on the Verilated fabric
# The README's first command ends with scripts/main-job.sh: the test runs that very script, so a change of options
# that breaks the quick start fails here. 0.00 %: the model's counts and cycles equal the RTL's (docs/model.md).
maeri_cli_test(run_default_example 0 --stdout-contains "network tiny: PASS" --stdout-contains
  "largest cycle error: fabric 0.00% (unsharded runs), post-processing unit 0.00%"
  bash ${PROJECT_SOURCE_DIR}/scripts/main-job.sh ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
maeri_cli_test(run_per_layer 0 --stdout-contains "largest cycle error: compute 0.00%"
  $<TARGET_FILE:maeri> run --per-layer --json ${CMAKE_CURRENT_BINARY_DIR}/run-per-layer.json
  --csv ${CMAKE_CURRENT_BINARY_DIR}/run-per-layer.csv)
maeri_cli_test(verify_top3_conv2 0 --stdout-contains "3 of 3 runs PASS"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${TINY} --layer conv2 --top 3 --seed 7)

# Fabrics built on demand (docs/rtl.md): specs with no prebuilt fabric co-simulate bit-exactly with exact model
# agreement (compute cycles); each way a build can fail gives one clear error and leaves nothing a run would load.
set(ON_DEMAND_8 ${CMAKE_CURRENT_SOURCE_DIR}/cli/on-demand-8.yaml)
set(ON_DEMAND_64 ${CMAKE_CURRENT_SOURCE_DIR}/cli/on-demand-64.yaml)
maeri_cli_test(fabric_on_demand_8 0 --stdout-contains "largest cycle error: compute 0.00%"
  $<TARGET_FILE:maeri> verify --hardware ${ON_DEMAND_8} --workload ${TINY} --layer conv3_1x1 --top 2 --memory ideal)
set_tests_properties(cli_fabric_on_demand_8 PROPERTIES FIXTURES_SETUP fabric_cache TIMEOUT 600)
# A chained run tells the fabric's build apart from its overhead (its own empty cache: it builds the fabric again).
maeri_cli_test(fabric_build_time 0 --stdout-contains "PASS: built in"
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/fabric_build_time.sh $<TARGET_FILE:maeri> ${ON_DEMAND_8} ${TINY})
set_tests_properties(cli_fabric_build_time PROPERTIES TIMEOUT 600)
maeri_cli_test(fabric_list 0 --stdout-contains "m8-dn2-rn1-d8-a20-c32-" $<TARGET_FILE:maeri> fabric list)
maeri_cli_test(fabric_build_cached 0 --stdout-contains "/fabric.so"
  $<TARGET_FILE:maeri> fabric build --hardware ${ON_DEMAND_8})
maeri_cli_test(fabric_corrupt 2 --stderr-contains "is corrupt: fabric.so has 100 bytes"
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/corrupt_fabric.sh ${FABRIC_CACHE}
  $<TARGET_FILE:maeri> verify --hardware ${ON_DEMAND_8} --workload ${TINY} --layer conv3_1x1 --memory ideal)
set_tests_properties(cli_fabric_list cli_fabric_build_cached cli_fabric_corrupt PROPERTIES FIXTURES_REQUIRED fabric_cache)
maeri_cli_test(fabric_prebuilt 0 --stdout-contains "prebuilt, nothing to build"
  $<TARGET_FILE:maeri> fabric build --hardware ${HW64})
maeri_cli_test(fabric_missing_verilator 2 --stderr-contains "verilator '/nonexistent/verilator' was not found"
  env MAERI_VERILATOR=/nonexistent/verilator
  $<TARGET_FILE:maeri> verify --hardware ${CONFIGS}/hardware/maeri-512.yaml --workload ${TINY})
maeri_cli_test(fabric_missing_compiler 2 --stderr-contains "the C++ compiler '/nonexistent/g++' was not found"
  env MAERI_FABRIC_CXX=/nonexistent/g++ $<TARGET_FILE:maeri> fabric build --hardware ${ON_DEMAND_64})
maeri_cli_test(fabric_unwritable_cache 2 --stderr-contains "cannot create the fabric cache directory /proc/maeri"
  env MAERI_FABRIC_CACHE=/proc/maeri $<TARGET_FILE:maeri> fabric build --hardware ${ON_DEMAND_64})
# A compiler that fails (false): the error names the failed command and the log; no fabric is left in the cache.
maeri_cli_test(fabric_failing_build 2 --stderr-contains "failed, its output is in"
  env MAERI_FABRIC_CXX=/bin/false MAERI_FABRIC_CACHE=${CMAKE_CURRENT_BINARY_DIR}/failing-cache
  $<TARGET_FILE:maeri> fabric build --hardware ${ON_DEMAND_8})
maeri_cli_test(fabric_failing_build_leaves_nothing 0 --stdout-contains "0 fabrics"
  env MAERI_FABRIC_CACHE=${CMAKE_CURRENT_BINARY_DIR}/failing-cache $<TARGET_FILE:maeri> fabric list)
set_tests_properties(cli_fabric_failing_build PROPERTIES FIXTURES_SETUP failing_cache)
set_tests_properties(cli_fabric_failing_build_leaves_nothing PROPERTIES FIXTURES_REQUIRED failing_cache)
# The issue's example instance, 64 MS with dn_bw 8: a bigger build, hence `long`.
maeri_cli_test(fabric_on_demand_64 0 --stdout-contains "largest cycle error: compute 0.00%"
  $<TARGET_FILE:maeri> verify --hardware ${ON_DEMAND_64} --workload ${TINY} --layer conv1 --top 1 --memory ideal)
set_tests_properties(cli_fabric_on_demand_64 PROPERTIES LABELS "cli;long" TIMEOUT 1200)
maeri_cli_test(verify_unknown_layer 2 --stderr-contains "has no layer 'conv9'"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${TINY} --layer conv9)
maeri_cli_test(sim_image 0 --stdout-contains "PASS (800 outputs bit-exact)"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --hardware ${HW64} --output ${CMAKE_CURRENT_BINARY_DIR}/conv1.out)
maeri_cli_test(sim_inputs_not_integers 2 --stderr-contains "field '--inputs': expected an integer, found 'kind:'"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --inputs ${HW64})
maeri_cli_test(sim_other_hardware 2 --stderr-contains "built for hardware 'maeri-64', not for 'maeri-256'"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --hardware ${CONFIGS}/hardware/maeri-256.yaml)
set_tests_properties(cli_sim_image cli_sim_inputs_not_integers cli_sim_other_hardware
  PROPERTIES FIXTURES_REQUIRED tiny_images)

# calibrate: fit, calibrated hardware YAML with provenance, CSV, SVG; the mapper takes the calibrated file
set(CALIBRATED ${CMAKE_CURRENT_BINARY_DIR}/calibration/maeri-64.calibrated.yaml)
maeri_cli_test(calibrate_tiny 0 --stdout-contains "held-out cycle MAPE: 0.00% before, 0.00% after"
  $<TARGET_FILE:maeri> calibrate --hardware ${HW64} --workload ${TINY} --holdout conv2,fc -o ${CALIBRATED})
set_tests_properties(cli_calibrate_tiny PROPERTIES FIXTURES_SETUP calibrated_hardware)
maeri_cli_test(calibrated_file_validates 0 --stdout-contains "OK: hardware 'maeri-64'"
  $<TARGET_FILE:maeri> validate ${CALIBRATED})
maeri_cli_test(map_with_calibrated_file 0 --stdout-contains "total over 4 layers"
  $<TARGET_FILE:maeri> map --hardware ${CALIBRATED} --workload ${TINY})
set_tests_properties(cli_calibrated_file_validates cli_map_with_calibrated_file
  PROPERTIES FIXTURES_REQUIRED calibrated_hardware)
maeri_cli_test(calibrate_unknown_parameter 2 --stderr-contains "--fit: unknown model parameter 'dram_eficiency'"
  $<TARGET_FILE:maeri> calibrate --hardware ${HW64} --workload ${TINY} --fit dram_eficiency
  -o ${CMAKE_CURRENT_BINARY_DIR}/unused/cal.yaml)
maeri_cli_test(calibrate_unknown_holdout 2 --stderr-contains "has no layer 'conv9' (--holdout)"
  $<TARGET_FILE:maeri> calibrate --hardware ${HW64} --workload ${TINY} --holdout conv9
  -o ${CMAKE_CURRENT_BINARY_DIR}/unused/cal.yaml)
# A budget no case fits (tiny's cheapest case is hundreds of cycles): exit 2 naming the option, nothing written.
maeri_cli_test(calibrate_budget_too_small 2 --stderr-contains "--budget-cycles: no calibration case fits within 1 co-simulated cycles"
  $<TARGET_FILE:maeri> calibrate --hardware ${HW64} --workload ${TINY} --budget-cycles 1
  -o ${CMAKE_CURRENT_BINARY_DIR}/unused/cal.yaml)
maeri_cli_test(help_calibrate 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> calibrate --help)

# Images and tensor files that only the semantic checks reject (docs/config-image.md "Validation", docs/cosim.md
# "Tensor files"): copies of tiny.conv1.mimg with one field changed and the CRC recomputed by maeri_patch_image.
# Each of these used to end in SIGFPE, a hang or std::bad_alloc.
add_executable(maeri_patch_image cli/patch_image.cpp unit/image_bytes.cpp)
target_include_directories(maeri_patch_image PRIVATE ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(maeri_patch_image PRIVATE maeri_codegen maeri_warnings)
set(BAD_IMAGES ${CMAKE_CURRENT_BINARY_DIR}/bad-images)
file(MAKE_DIRECTORY ${BAD_IMAGES})
foreach(patch "stride;layer.stride_x;0" "loop;program[0].operand[2];4294967295" "name;layer.name[0];255"
              "huge;layer.K;16777216")
  list(GET patch 0 stem)
  list(GET patch 1 field)
  list(GET patch 2 value)
  add_test(NAME cli_make_bad_image_${stem}
    COMMAND maeri_patch_image ${IMAGES}/tiny.conv1.mimg ${BAD_IMAGES}/${stem}.mimg ${field} ${value})
  set_tests_properties(cli_make_bad_image_${stem} PROPERTIES LABELS cli FIXTURES_REQUIRED tiny_images
    FIXTURES_SETUP bad_images)
endforeach()
maeri_cli_test(disasm_bad_stride 2 --stderr-contains "layer.stride_x: expected an integer in [1, 1024], found 0"
  $<TARGET_FILE:maeri> disasm ${BAD_IMAGES}/stride.mimg)
maeri_cli_test(sim_bad_stride 2 --stderr-contains "layer.stride_x: expected an integer in [1, 1024], found 0"
  $<TARGET_FILE:maeri> sim ${BAD_IMAGES}/stride.mimg)
maeri_cli_test(sim_endless_loop 2 --stderr-contains "program[0] (FOR): kb = 0 + (4294967295 − 1)·2 = 8589934588 reaches past the layer's K/groups = 8"
  $<TARGET_FILE:maeri> sim ${BAD_IMAGES}/loop.mimg)
maeri_cli_test(disasm_json_name_not_utf8 2 --stderr-contains "layer.name is not valid UTF-8"
  $<TARGET_FILE:maeri> disasm ${BAD_IMAGES}/name.mimg --json)
maeri_cli_test(disasm_huge_layer 2 --stderr-contains "layer: the weight tensor K·(C/groups)·R·S is 452984832"
  $<TARGET_FILE:maeri> disasm ${BAD_IMAGES}/huge.mimg)
maeri_cli_test(sim_huge_layer 2 --stderr-contains "layer: the weight tensor K·(C/groups)·R·S is 452984832"
  $<TARGET_FILE:maeri> sim ${BAD_IMAGES}/huge.mimg)
set_tests_properties(cli_disasm_bad_stride cli_sim_bad_stride cli_sim_endless_loop cli_disasm_json_name_not_utf8
  cli_disasm_huge_layer cli_sim_huge_layer PROPERTIES FIXTURES_REQUIRED "tiny_images;bad_images")

# Tensor files: conv1's input is [N=1][C=3][X=10][Y=10] = 300 values, so 599 .. 1048576 + 32·300 = 1058176 bytes.
add_test(NAME cli_make_oversized_tensor COMMAND truncate -s 2M ${BAD_IMAGES}/oversized.tensor)
set_tests_properties(cli_make_oversized_tensor PROPERTIES LABELS cli FIXTURES_SETUP bad_tensors)
file(WRITE ${BAD_IMAGES}/three.tensor "1 2 3\n")
maeri_cli_test(sim_oversized_tensor 2
  --stderr-contains "oversized.tensor: field '--inputs': the file has 2097152 bytes, but 300 values for the layer need 599..1058176 bytes"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --inputs ${BAD_IMAGES}/oversized.tensor)
maeri_cli_test(sim_tensor_too_small 2
  --stderr-contains "three.tensor: field '--weights': the file has 6 bytes, but 216 values for the layer need 431..1055488 bytes"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --weights ${BAD_IMAGES}/three.tensor)
set_tests_properties(cli_sim_oversized_tensor cli_sim_tensor_too_small
  PROPERTIES FIXTURES_REQUIRED "tiny_images;bad_tensors")

# Names that are not UTF-8 are refused where the YAML is read (docs/cli.md, "Input and output files"), so no JSON
# writer meets one: a workload whose layer name ends in the byte 0xFF.
string(ASCII 255 BYTE_FF)
file(WRITE ${BAD_IMAGES}/non-utf8.yaml "kind: workload\nname: w\nlayers:\n  - {name: \"fc${BYTE_FF}\", type: fc, K: 4, C: 4}\n")
maeri_cli_test(map_json_name_not_utf8 2 --stderr-contains "not valid UTF-8 text: byte 0xff"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${BAD_IMAGES}/non-utf8.yaml --json ${BAD_IMAGES}/non-utf8.json
  -o ${BAD_IMAGES}/non-utf8.mapping.yaml)

# Bad paths and bad files (docs/cli.md, "Bad inputs the tests cover"): exit 2 naming the path and the reason.
# A directory where a file is expected:
maeri_cli_test(validate_directory 2 --stderr-contains "${CONFIGS}: is a directory (expected a YAML file)"
  $<TARGET_FILE:maeri> validate ${CONFIGS})
maeri_cli_test(show_hardware_directory 2 --stderr-contains "${CONFIGS}/hardware: is a directory (expected a YAML file)"
  $<TARGET_FILE:maeri> show --hardware ${CONFIGS}/hardware)
maeri_cli_test(verify_hardware_directory 2 --stderr-contains "${CONFIGS}: is a directory (expected a YAML file)"
  $<TARGET_FILE:maeri> verify --hardware ${CONFIGS} --workload ${TINY})
# Output paths: each case of output_targets.sh sets up its target and checks nothing was replaced or left behind.
foreach(case dev_null symlink fifo directory under_regular_file codegen_dir_under_regular_file read_only_dir disk_full)
  add_test(NAME cli_output_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/output_targets.sh ${case} $<TARGET_FILE:maeri> ${HW64} ${TINY})
  set_tests_properties(cli_output_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endforeach()
# Places where nobody, root included, can create files (CI runs as root, which ignores permission bits):
maeri_cli_test(map_output_in_proc 2 --stderr-contains "/proc/maeri.mapping.yaml: cannot create the output file in '/proc'"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${TINY} --layer fc -o /proc/maeri.mapping.yaml)
maeri_cli_test(codegen_output_dir_in_proc 2
  --stderr-contains "/proc/maeri-images: cannot create the output directory: No such file or directory"
  $<TARGET_FILE:maeri> codegen --hardware ${HW64} --workload ${TINY} --layer fc -o /proc/maeri-images)
maeri_cli_test(calibrate_output_in_proc 2 --stderr-contains "/proc/maeri-cal: cannot create the output directory"
  $<TARGET_FILE:maeri> calibrate --hardware ${HW64} --workload ${TINY} -o /proc/maeri-cal/cal.yaml)
# Outputs are checked before the co-simulation, so these end at once:
maeri_cli_test(verify_json_dev_null 2 --stderr-contains "/dev/null: refusing to replace a character device"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${TINY} --json /dev/null)
maeri_cli_test(sim_trace_directory 2 --stderr-contains "${CMAKE_CURRENT_BINARY_DIR}: refusing to replace a directory"
  $<TARGET_FILE:maeri> sim ${IMAGES}/tiny.conv1.mimg --trace ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli_sim_trace_directory PROPERTIES FIXTURES_REQUIRED tiny_images)
# A mapping file made for other hardware, or for a layer of another shape, or with a tile that does not fit:
maeri_cli_test(verify_mapping_other_hardware 2 --stderr-contains "the mapping was made for maeri-64 (64 MS"
  $<TARGET_FILE:maeri> verify --hardware ${CONFIGS}/hardware/maeri-256.yaml --workload ${TINY}
  --mapping ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml)
set_tests_properties(cli_verify_mapping_other_hardware PROPERTIES FIXTURES_REQUIRED tiny_mapping)
# Generated bad files: YAML over the input limits (each must end within 10 s; ctest stops it at 60 s), text that
# is not UTF-8, graphs breaking the graph rules, mappings that do not fit the workload, fused groups breaking a rule.
foreach(case billion_laughs endless_alias deep_nesting huge_file endless_device wide_mapping long_list non_utf8_name
             graph_shapes_disagree graph_cycle graph_dangling graph_produced_twice mapping_other_shape mapping_tile_too_large mapping_sdm_below_tile mapping_sdm_order mapping_sdm_capacity
             mapping_phase_order mapping_bad_groups fused_group_ok fused_group_stripes fused_group_not_consumer
             fused_group_capacity)
  add_test(NAME cli_input_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_inputs.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS}
            ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml)
  set_tests_properties(cli_input_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()
set_tests_properties(cli_input_mapping_other_shape cli_input_mapping_tile_too_large cli_input_mapping_bad_groups
  PROPERTIES FIXTURES_REQUIRED tiny_mapping)

# The installed tool (cmake --install into a temporary prefix, run from another directory) and its .deb (CPack).
foreach(case tree deb)
  add_test(NAME cli_installed_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/installed_tool.sh ${case} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_installed_${case} PROPERTIES LABELS cli RESOURCE_LOCK install_manifest)
endforeach()

# maeri sweep (docs/sweep.md): equals `maeri map` point by point; invalid points and empty grids.
# The MPI case is skipped (exit 77) without MPI, fails under MAERI_REQUIRE_MPI=1, and is not in sanitizer builds
# (as the network cases above).
set(sweep_cases matches_map matches_map_no_fusion invalid_point empty_grid verify verify_no_fusion)
if(NOT MAERI_SANITIZE)
  list(APPEND sweep_cases mpi_equal_single)
endif()
foreach(case ${sweep_cases})
  add_test(NAME cli_sweep_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/sweep.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS}
            "$<$<BOOL:${MPI_CXX_FOUND}>:${MPIEXEC_EXECUTABLE}>")
  set_tests_properties(cli_sweep_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()
maeri_cli_test(help_sweep 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> sweep --help)

# Whole networks: manifest, checksums, safe file names, sharded runs (with --jobs, and with 2 MPI ranks when the
# build found MPI) equal to the unsharded run, a shard past its time limit.
# The MPI case runs `mpirun -np 2`; it is skipped (exit 77, with a message) when the build found no MPI, and fails
# instead when MAERI_REQUIRE_MPI=1 (scripts/test.sh sets it: CI installs Open MPI, so it must run there). Not in
# sanitizer builds, where LeakSanitizer would report Open MPI's own allocations.
set(network_cases manifest manifest_checksum layer_names jobs_equal_single shard_timeout)
if(NOT MAERI_SANITIZE)
  list(APPEND network_cases mpi_equal_single mpi_rank_dies)
endif()
foreach(case ${network_cases})
  add_test(NAME cli_network_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/network_runs.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS}
            "$<$<BOOL:${MPI_CXX_FOUND}>:${MPIEXEC_EXECUTABLE}>")
  set_tests_properties(cli_network_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()

# Fused groups in images and the manifest (docs/config-image.md version 7, docs/network-manifest.md).
foreach(case codegen_disasm manifest_disagrees)
  add_test(NAME cli_fused_images_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fused_images.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS})
  set_tests_properties(cli_fused_images_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()

# The mRNA reproduction script on its reduced grid (docs/reproduction.md), the search measurement script on tiny
# (docs/search.md), the FFM comparison at one sequence length (scripts/ffm-comparison.py), the fused-DRAM bound of
# ResNet-50 (scripts/fusion-bound.py), the ranking check on the RTL (scripts/rank-check.py), the fused-vs-unfused check
# on the RTL over SDM sizes (scripts/fusion-rtl-check.py) and `maeri plot`.
foreach(case reproduce_quick measure_quick ffm_quick fusion_bound rank_check fusion_rtl_check plot_bars plot_errors)
  add_test(NAME cli_reproduction_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/reproduction.sh ${case} $<TARGET_FILE:maeri> ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_reproduction_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()
# ONNX models (docs/workload-spec.md, "ONNX models"): written by maeri_make_onnx_models with the ONNX C++ API;
# `maeri import` reports every layer and skipped node (MACs by hand: 8·2·9·100 + 8·1·9·25 + 8·6 = 16248),
# map/verify take the .onnx directly, bad models exit 2
# naming the node and leave no output.
add_executable(maeri_make_onnx_models cli/make_onnx_models.cpp cli/make_transformer_onnx_models.cpp
               unit/onnx_models.cpp)
target_include_directories(maeri_make_onnx_models PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(maeri_make_onnx_models PRIVATE onnx onnx_proto maeri_warnings)
set(ONNX_MODELS ${CMAKE_CURRENT_BINARY_DIR}/onnx-models)
file(MAKE_DIRECTORY ${ONNX_MODELS})
add_test(NAME cli_make_onnx_models COMMAND maeri_make_onnx_models ${ONNX_MODELS})
set_tests_properties(cli_make_onnx_models PROPERTIES LABELS cli FIXTURES_SETUP onnx_models)
maeri_cli_test(import_onnx 0 --stdout-contains "relu1 (relu) pool (max pool) flatten (reshape)"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/small.onnx -o ${ONNX_MODELS}/small.yaml)
maeri_cli_test(validate_imported_onnx 0 --stdout-contains "workload 'small_cnn': 3 layers, 16248 MACs"
  $<TARGET_FILE:maeri> validate ${ONNX_MODELS}/small.yaml)
maeri_cli_test(map_onnx 0 --stdout-contains "total over 3 layers"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${ONNX_MODELS}/small.onnx)
maeri_cli_test(verify_onnx 0 --stdout-contains "3 of 3 runs PASS"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${ONNX_MODELS}/small.onnx --seed 3)
maeri_cli_test(import_not_onnx 2 --stderr-contains "not-onnx.onnx: field 'model': not an ONNX model"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/not-onnx.onnx -o ${ONNX_MODELS}/not-onnx.yaml)
maeri_cli_test(import_dynamic_shape 2 --stderr-contains "field 'node conv': its input 'x' has the dynamic dimension 'batch'"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/dynamic.onnx -o ${ONNX_MODELS}/dynamic.yaml)
maeri_cli_test(import_asymmetric_pads 2 --stderr-contains "field 'node pool_same': asymmetric pads [0, 0, 1, 1]"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/asymmetric-pool.onnx -o ${ONNX_MODELS}/asymmetric-pool.yaml)
maeri_cli_test(map_asymmetric_onnx 0 --stdout-contains "layer conv_same (conv K=4 C=3 R=3 S=3 X'=7 Y'=7 stride 1x1"
  $<TARGET_FILE:maeri> map --hardware ${HW64} --workload ${ONNX_MODELS}/asymmetric.onnx --details)
# An If on a run-time input (issue 41): --input-value records the value, imports the branch taken and names the other.
maeri_cli_test(import_if_input_value_wide 0 --stdout-contains "1 layers, 6912 MACs"
  --stdout-contains "If choose: its condition folds to true: then_branch imported (2 nodes), else_branch not taken (1 nodes"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/if-input.onnx --input-value wide=1 -o ${ONNX_MODELS}/if-wide.yaml)
maeri_cli_test(import_if_input_value_narrow 0 --stdout-contains "1 layers, 768 MACs"
  --stdout-contains "else_branch imported (1 nodes), then_branch not taken (2 nodes"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/if-input.onnx --input-value wide=0 -o ${ONNX_MODELS}/if-narrow.yaml)
maeri_cli_test(import_if_input_value_not_bool 2 --stderr-contains "field '--input-value wide': 2 is not a value of the input's element type (BOOL)"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/if-input.onnx --input-value wide=2 -o ${ONNX_MODELS}/if-bad.yaml)
maeri_cli_test(import_if_input_value_missing 2 --stderr-contains "its If node choose (on 'wide') branch on a value known only at run time: give the run-time input's value with --input-value NAME=V"
  $<TARGET_FILE:maeri> import ${ONNX_MODELS}/if-input.onnx -o ${ONNX_MODELS}/if-missing.yaml)
add_test(NAME cli_import_if_input_value_recorded
  COMMAND grep -q "run-time input values (--input-value) wide=1" ${ONNX_MODELS}/if-wide.yaml)
set_tests_properties(cli_import_if_input_value_recorded PROPERTIES LABELS cli DEPENDS cli_import_if_input_value_wide)
set_tests_properties(cli_import_if_input_value_wide cli_import_if_input_value_narrow cli_import_if_input_value_not_bool
  cli_import_if_input_value_missing PROPERTIES FIXTURES_REQUIRED onnx_models)
set_tests_properties(cli_import_onnx cli_map_onnx cli_verify_onnx cli_import_not_onnx cli_import_dynamic_shape
  cli_import_asymmetric_pads cli_map_asymmetric_onnx PROPERTIES FIXTURES_REQUIRED onnx_models)
set_tests_properties(cli_import_onnx PROPERTIES FIXTURES_SETUP onnx_imported)
set_tests_properties(cli_validate_imported_onnx PROPERTIES FIXTURES_REQUIRED onnx_imported)
add_test(NAME cli_import_errors_leave_no_output
  COMMAND bash -c "! ls ${ONNX_MODELS}/not-onnx.yaml ${ONNX_MODELS}/dynamic.yaml ${ONNX_MODELS}/asymmetric-pool.yaml 2>/dev/null")
set_tests_properties(cli_import_errors_leave_no_output PROPERTIES LABELS cli
  DEPENDS "cli_import_not_onnx;cli_import_dynamic_shape;cli_import_asymmetric_pads")

# A real depthwise layer: MobileNetV2's first (C = K = groups = 32, 3×3, 112×112) co-simulated on maeri-64 with
# ideal memory, bit-exact with exact model agreement (~1.5 s).
maeri_cli_test(verify_mobilenetv2_depthwise 0 --stdout-contains "PASS (401408 outputs bit-exact)"
  $<TARGET_FILE:maeri> verify --hardware ${HW64} --workload ${CONFIGS}/workloads/mobilenetv2.yaml
  --layer block0_depthwise --memory ideal)

# Heuristic searches (docs/search.md): map --search, surrogate train/check, explore.
foreach(case map_methods map_groups map_reproducible surrogate explore)
  add_test(NAME cli_search_${case} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/search.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS})
  set_tests_properties(cli_search_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()
maeri_cli_test(help_explore 0 --stdout-contains "Example:" $<TARGET_FILE:maeri> explore --help)

# Bad models and values (tests/cli/bad_models.sh, issue 34 part B): ONNX attributes that crashed import, what import
# wrote that the loader refused, plots of values no axis can place, integer spellings, empty option values.
foreach(case onnx_stride_0_0 onnx_stride_0_1 onnx_same_stride_0 onnx_negative_pads onnx_domain_stride_0
             onnx_pool_stride_0 onnx_dilation_0 onnx_group_float onnx_strides_int onnx_own_output onnx_matmul_batch_0
             onnx_matmul_batch_overflow onnx_pads_span onnx_20000_layers onnx_node_name_not_utf8
             onnx_graph_name_not_utf8 onnx_20mb_name onnx_map_stride_0 plot_huge plot_plus_minus_huge plot_log_tiny
             plot_ulps_apart plot_bom plot_long_title hardware_plus_sign hardware_leading_zero hardware_str_tag
             second_document map_empty_tile map_empty_order map_empty_phase_order mapping_objective explore_dev_null
             optimum_nan optimum_negative sim_weights_directory sim_weights_missing)
  add_test(NAME cli_model_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_models.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS} ${ONNX_MODELS}
            ${CMAKE_CURRENT_BINARY_DIR}/tiny.mapping.yaml ${IMAGES}/tiny.conv1.mimg)
  set_tests_properties(cli_model_${case} PROPERTIES LABELS cli TIMEOUT 900
                       ENVIRONMENT MAERI_FABRIC_CACHE=${FABRIC_CACHE})
  if(case MATCHES "^onnx_")
    set_tests_properties(cli_model_${case} PROPERTIES FIXTURES_REQUIRED onnx_models)
  endif()
endforeach()
set_tests_properties(cli_model_mapping_objective PROPERTIES FIXTURES_REQUIRED tiny_mapping)
set_tests_properties(cli_model_sim_weights_directory cli_model_sim_weights_missing
  PROPERTIES FIXTURES_REQUIRED tiny_images)
# Bad files and names (tests/cli/bad_files.sh): the fabric cache's clean, names that become paths, devices, FIFOs
# and folders given as inputs, malformed optimum caches, and the messages for them.
foreach(case fabric_clean_foreign fabric_list_no_home map_name_parent map_name_absolute map_name_nul import_device
             import_fifo import_directory import_missing plot_device plot_directory plot_missing
             verify_manifest_device verify_manifest_directory manifest_image_device manifest_other_parameters
             optimum_cache_text optimum_cache_overflow optimum_cache_empty optimum_cache_exhaustive
             optimum_cache_short_row surrogate_model_directory long_value cr_line_endings)
  add_test(NAME cli_file_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_files.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS})
  set_tests_properties(cli_file_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()

# The co-simulated DRAM device (dram.timing, docs/hardware-spec.md): bit-exact, row misses and a refresh counted.
add_test(NAME cli_dram_timing_preset
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/dram_timing.sh $<TARGET_FILE:maeri> ${CONFIGS})
set_tests_properties(cli_dram_timing_preset PROPERTIES LABELS cli TIMEOUT 900 ENVIRONMENT MAERI_FABRIC_CACHE=${FABRIC_CACHE})

# Tensors from NumPy files (docs/cosim.md, "Tensors from NumPy files"): tiny's conv1 on given input and weights
# equals their reference convolution bit for bit, alone, in shards over --jobs 2 and over 2 MPI ranks; .npz members;
# a given expected output that differs fails with exit 3; each bad file exits 2 naming the file and field, and
# writes nothing. The files come from maeri_make_npy_files (util/npy_file, codegen::reference_convolution).
add_executable(maeri_make_npy_files cli/make_npy_files.cpp)
target_include_directories(maeri_make_npy_files PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(maeri_make_npy_files PRIVATE maeri_codegen maeri_warnings)
set(NPY_FILES ${CMAKE_CURRENT_BINARY_DIR}/npy-files)
file(MAKE_DIRECTORY ${NPY_FILES})
add_test(NAME cli_make_npy_files COMMAND maeri_make_npy_files ${HW64} ${TINY} conv1 ${NPY_FILES})
set_tests_properties(cli_make_npy_files PROPERTIES LABELS cli FIXTURES_SETUP npy_files)
set(tensor_cases given_equals_reference npz_members expected_mismatch jobs_equal_single bad_big_endian
    bad_fortran bad_header bad_truncated bad_oversized bad_floats bad_wrong_shape bad_out_of_range bad_member
    bad_two_layers)
if(NOT MAERI_SANITIZE)
  list(APPEND tensor_cases mpi_equal_single)
endif()
set(chain_cases run jobs layer_jobs weight_fault unit_fault outputs_feed_back all_tensors_streamed calibration_set calibration_wraps bad_input_shape bad_weights_member bad_fault bad_outputs
    one_layer_option onnx_top1 onnx_batch several_inputs onnx_float_nodes every_kind onnx_channel_affine onnx_pad onnx_gates
    onnx_elementwise onnx_layout onnx_resize onnx_layer_norm attention onnx_attention bad_matmul transformer_blocks
    onnx_transformer bad_mask bad_token_index scalar_token)
if(NOT MAERI_SANITIZE)
  list(APPEND chain_cases mpi)
endif()
foreach(case ${chain_cases})
  add_test(NAME cli_chain_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/network_chain.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS} ${NPY_FILES}
            ${ONNX_MODELS} "$<$<BOOL:${MPI_CXX_FOUND}>:${MPIEXEC_EXECUTABLE}>")
  set_tests_properties(cli_chain_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900
                       FIXTURES_REQUIRED "npy_files;onnx_models")
endforeach()
set(fused_cases map_verify jobs bad_group)
if(NOT MAERI_SANITIZE)
  list(APPEND fused_cases mpi)
endif()
foreach(case ${fused_cases})
  add_test(NAME cli_fused_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/fused_chain.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS}
            "$<$<BOOL:${MPI_CXX_FOUND}>:${MPIEXEC_EXECUTABLE}>")
  set_tests_properties(cli_fused_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()
# Fused groups through streaming operators on the RTL (tests/cli/stream_fusion_chain.sh).
foreach(case transformer pool_stripes token_stripes query_rows query_rows_ragged)
  add_test(NAME cli_stream_fusion_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/stream_fusion_chain.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS})
  set_tests_properties(cli_stream_fusion_${case} PROPERTIES LABELS cli TIMEOUT 900)
endforeach()
# `map --mapping FILE`: a given decision costed, the same totals as map's own; a refused group is exit 2
# (tests/cli/map_given_mapping.sh).
add_test(NAME cli_map_given_mapping
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/map_given_mapping.sh $<TARGET_FILE:maeri> ${CONFIGS})
set_tests_properties(cli_map_given_mapping PROPERTIES LABELS cli TIMEOUT 300)
# Issue 43's hostile inputs (tests/cli/hostile_inputs.sh): .npz members that declare far more than the run needs,
# lie about their size, an empty archive, a member named twice or by 60,000 bytes, the network input in f2, u8 and
# bool; a fused group name past an image's u16 length; a user's folder named like a fabric key and a killed
# builder's folder in the fabric cache; plot's long values and subnormals.
foreach(case npz_bomb_network_input npz_bomb_network_weights npz_bomb_layer_input npz_directory_lie
             npz_empty_weights npz_duplicate_members npz_long_member_name network_input_dtypes
             codegen_long_group_name fabric_clean_user_folder fabric_killed_build plot_long_value plot_subnormal
             optimum_cache_below_minimum)
  add_test(NAME cli_hostile_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_inputs.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS} ${NPY_FILES})
  set_tests_properties(cli_hostile_${case} PROPERTIES LABELS cli TIMEOUT 900 FIXTURES_REQUIRED npy_files
                       ENVIRONMENT MAERI_FABRIC_CACHE=${FABRIC_CACHE})
endforeach()
foreach(case ${tensor_cases})
  add_test(NAME cli_tensors_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/tensor_runs.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS} ${NPY_FILES}
            "$<$<BOOL:${MPI_CXX_FOUND}>:${MPIEXEC_EXECUTABLE}>")
  set_tests_properties(cli_tensors_${case} PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900
                       FIXTURES_REQUIRED npy_files)
endforeach()
# `--report` draws a chained run: refused where no chained run happens (exit 1, usage), not ignored.
maeri_cli_test(run_report_per_layer_refused 1 --stderr-contains "--report: a chained run's option"
  $<TARGET_FILE:maeri> run --per-layer --report ${CMAKE_CURRENT_BINARY_DIR}/never.html)

# bench --exact: the exact model's and the fluid estimate's mappings per second on one tiny layer; an unknown layer
# is bad input naming it.
maeri_cli_test(bench_exact_tiny 0 --stdout-contains "exact mapping/s"
  $<TARGET_FILE:maeri> bench --exact --workload ${TINY} --hardware ${HW64} --layers conv1 --mappings 1)
maeri_cli_test(bench_exact_unknown_layer 2 --stderr-contains "no layer named 'nope'"
  $<TARGET_FILE:maeri> bench --exact --workload ${TINY} --hardware ${HW64} --layers nope)
