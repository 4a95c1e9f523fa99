// libFuzzer harness: the ONNX importer (importer::import_onnx: protobuf parsing, the attribute checks, input sizes,
// shape-computation folding, ONNX shape inference, the graph and the weights) on arbitrary file contents, with and
// without --batch. Bad input must end in maeri::util::InputError; anything else (a signal, another exception, a
// sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>

#include "importer/onnx_import.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"
#include "util/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".onnx");
  const std::string& path = file.write(data, size);
  maeri::importer::ModelInputShapes none, batch;
  batch.batch = 2;
  for (const maeri::importer::ModelInputShapes& sizes : {none, batch}) {
    try {
      const maeri::importer::OnnxImport imported = maeri::importer::import_onnx(path, sizes);
      // Every layer the importer gives obeys the Layer's rules: its derived sizes are positive and computable.
      for (const maeri::contracts::Layer& layer : imported.network.layers)
        if (layer.output_x() < 1 || layer.output_y() < 1 || layer.macs() < 1) __builtin_trap();
    } catch (const maeri::util::InputError&) {
    }
  }
  return 0;
}
