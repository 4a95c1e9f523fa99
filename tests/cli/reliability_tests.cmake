# Issue 43's remaining reliability items (tests/cli/reliability.sh, docs/cli.md "Bad inputs the tests cover",
# cli_reliable_CASE): non-finite values refused where they enter a chained run, messages that name the real file
# and reason, the memory budget, imported workloads the loader would refuse, DRAM timing the co-simulation cannot
# run; and that every file a command writes loads with the reader the docs name for it. The models and tensors are
# written by maeri_make_hostile_models (tests/cli/make_hostile_models.cpp), the importer's by maeri_make_onnx_models.
add_executable(maeri_make_hostile_models cli/make_hostile_models.cpp unit/onnx_models.cpp)
target_include_directories(maeri_make_hostile_models PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(maeri_make_hostile_models PRIVATE onnx onnx_proto maeri_util maeri_warnings)
set(HOSTILE_MODELS ${CMAKE_CURRENT_BINARY_DIR}/hostile-models)
file(MAKE_DIRECTORY ${HOSTILE_MODELS})
add_test(NAME cli_make_hostile_models COMMAND maeri_make_hostile_models ${HOSTILE_MODELS})
set_tests_properties(cli_make_hostile_models PROPERTIES LABELS cli FIXTURES_SETUP hostile_models)
foreach(case input_nan input_inf input_overflow weights_nan calibration_inf bn_negative_variance bn_nan_mean
             bn_zero_variance mul_nan_channel mul_nan_tensor gemm_alpha_nan deep_chain memory_budget_wide_conv
             memory_budget_pad memory_budget_option import_hardsigmoid_alpha import_matmul_1d import_pad_2_24
             import_pad_2_40 import_pool_kernel_over_input import_pool_pads_kernel dram_refresh_rounded
             dram_slowest_device chain_failure_stderr mapping_layer_twice
             writers_match_readers loop_zero_weights loop_4096)
  add_test(NAME cli_reliable_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/reliability.sh ${case} $<TARGET_FILE:maeri> ${CONFIGS} ${HOSTILE_MODELS}
            ${ONNX_MODELS})
  set_tests_properties(cli_reliable_${case} PROPERTIES LABELS cli TIMEOUT 900 FIXTURES_REQUIRED "hostile_models;onnx_models"
                       ENVIRONMENT MAERI_FABRIC_CACHE=${FABRIC_CACHE})
endforeach()
# 4,096 unrolled layers, each searched: about a minute.
set_tests_properties(cli_reliable_loop_4096 PROPERTIES LABELS "cli;long")
