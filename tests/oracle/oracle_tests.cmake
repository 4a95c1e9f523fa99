# ONNX Runtime as the independent reference (tests/oracle/README.md): npm's onnxruntime-node, installed into the
# build tree by the first test (a test-only dependency; scripts/setup.sh installs node and npm), runs every ONNX model
# of tests/oracle/models.txt (the generated ones of maeri_make_onnx_models and the real exports in tests/oracle/models/)
# on a seeded input; the chained run's float reference must agree with it within 1e-4 on every tensor the model names,
# and its integer result, dequantized, at cosine ≥ 0.99 on every final output it computes.
add_executable(maeri_expose_onnx_tensors oracle/expose_onnx_tensors.cpp)
target_link_libraries(maeri_expose_onnx_tensors PRIVATE onnx onnx_proto maeri_warnings)
set(ONNXRUNTIME_NODE_DIR ${CMAKE_BINARY_DIR}/onnxruntime-node CACHE PATH
    "where the oracle tests install npm's onnxruntime-node (node_modules/ below it)")
add_test(NAME oracle_install_onnxruntime
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oracle/install_onnxruntime.sh ${ONNXRUNTIME_NODE_DIR})
set_tests_properties(oracle_install_onnxruntime PROPERTIES LABELS oracle TIMEOUT 600 FIXTURES_SETUP onnxruntime)
add_test(NAME oracle_onnx_runtime
  COMMAND node ${CMAKE_CURRENT_SOURCE_DIR}/oracle/onnx_oracle.js --maeri $<TARGET_FILE:maeri>
          --expose $<TARGET_FILE:maeri_expose_onnx_tensors> --hardware ${HW64}
          --work ${CMAKE_CURRENT_BINARY_DIR}/oracle --json ${CMAKE_CURRENT_BINARY_DIR}/oracle/results.json
          ${CMAKE_CURRENT_SOURCE_DIR}/oracle/models.txt)
set_tests_properties(oracle_onnx_runtime PROPERTIES LABELS oracle TIMEOUT 1800
  FIXTURES_REQUIRED "onnx_models;onnxruntime"
  ENVIRONMENT "NODE_PATH=${ONNXRUNTIME_NODE_DIR}/node_modules;ONNX_MODELS=${ONNX_MODELS};ORACLE_MODELS=${CMAKE_CURRENT_SOURCE_DIR}/oracle/models;MAERI_FABRIC_CACHE=${FABRIC_CACHE}")
