// Lookup: the entries of a constant table picked by run-time indices (a token embedding; ONNX Gather whose indices
// are a tensor of the network, not constants). The one home of its shape rule, of which table element each output
// element copies and of what an index may be, shared by the integer and float references
// (testbench/table_lookup.hpp), the post-processing unit (sim/post_processing_lookup.cpp), the seeded stimulus and
// shape inference (contracts/network.cpp). docs/quantization.md, "Lookup"; docs/workload-spec.md, "Graphs".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

struct Network;
struct Operator;
struct InferredShape;

// A Lookup reads (indices, table): the indices are an activation of any shape holding whole numbers, the table a
// constant; `op.axis` is the table's axis the indices pick along. The output's shape is the table's axes before
// `axis`, the indices' shape, the table's axes after it (ONNX Gather), or why the operator does not fit.
InferredShape lookup_output_shape(const Network& network, const Operator& op, const std::string& label);

// For every output element (row-major) the table element (row-major) it copies. An index i names entry i when
// 0 ≤ i < extent and entry i + extent when −extent ≤ i < 0 (ONNX's negative indices); any other index throws
// std::invalid_argument naming the operator, the indices' tensor (`indices_name`, when not empty: the user's input
// names its file, not its tensor), the index's position and value and the range allowed.
std::vector<std::int64_t> lookup_sources(const Operator& op, const std::vector<std::int64_t>& table_shape,
                                         const std::vector<std::int64_t>& indices, const std::string& indices_name);

// The float reference's indices: each real value must be a whole number (ONNX indices are integers; a token id
// given as a float is exact below 2^53), else std::invalid_argument naming the operator, the indices' tensor (as
// lookup_sources) and the position.
std::vector<std::int64_t> whole_indices(const Operator& op, const std::vector<double>& reals,
                                        const std::string& indices_name);

// Which tensors hold indices, per tensor of `network`: 0 for none; for a Lookup's indices the extent of the table
// axis they pick along (the smallest when several lookups read them), and so for the tensors they are data movement
// of (reshape, transpose, slice, gather, concat); 1 for a tensor that reaches indices only through integer arithmetic
// of two tensors (add, sub, mul, max, min: ids · mask + type ids, as BERT-style exports compute them) or with a
// constant operand (add, sub, max, min: position ids as ids + offset, a clamp), whose values no extent bounds. Such tensors are whole numbers at scale 1 (docs/quantization.md, "Lookup"); seeded
// stimulus draws an index input as whole numbers in [0, extent) (0 alone for extent 1, which keeps any sum inside
// the table).
std::vector<std::int64_t> index_extents(const Network& network);

}  // namespace maeri::contracts
