// The transformer blocks among the models of maeri_make_onnx_models (tests/cli/make_transformer_onnx_models.cpp).
#pragma once

#include <string>

namespace maeri::test {

void write_transformer_encoder(const std::string& path);
void write_transformer_decoder(const std::string& path);
void write_attention_broadcast(const std::string& path);
void write_attention_hf_mask(const std::string& path);
void write_token_embedding(const std::string& path);
// One token id, a rank-0 int64 input "token", looked up in a 12-row embedding (Gather of scalar indices: a row of
// kHidden), unsqueezed to (1, kHidden) and projected by a MatMul to (1, 4): "y".
void write_scalar_token(const std::string& path);

}  // namespace maeri::test
