// What `maeri import` writes must load: the workload text is read back by the loader (contracts::load_workload_text,
// every rule in its one home) before the file is written, and a refusal names the ONNX node whose operator or layer
// the loader refused (issue 43, item 3c: HardSigmoid alpha 3e38, a MatMul of two 1-D tensors, pads past 2^24, a
// pooling window larger than its input were written, exit 0, then refused by `validate`).
#pragma once

#include <string>

namespace maeri::importer {

// Throws util::InputError at `model_path`, field "node NAME" (the operator or layer the loader's error is about,
// when its field says), when `yaml` does not load as a workload.
void require_loadable_workload(const std::string& yaml, const std::string& model_path);

}  // namespace maeri::importer
