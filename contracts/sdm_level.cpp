// Names, text forms and the permutations of the SDM level (see sdm_level.hpp).
#include "contracts/sdm_level.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "contracts/tile.hpp"

namespace maeri::contracts {

const char* sdm_dim_key(int dim) {
  static const char* const kKeys[kNumSdmDims] = {"K", "C", "N", "X", "Y"};
  return kKeys[dim];
}

const char* sdm_block_name(int dim) {
  static const char* const kNames[kNumSdmDims] = {"B_K", "B_C", "B_N", "B_X'", "B_Y'"};
  return kNames[dim];
}

int sdm_tile_dim(int dim) {
  static const int kDims[kNumSdmDims] = {kDimK, kDimC, kDimN, kDimX, kDimY};
  return kDims[dim];
}

std::string order_text(const SdmOrder& order) {
  std::string text;
  for (std::uint8_t dim : order) text += sdm_dim_key(dim);
  return text;
}

std::string order_problem(const std::string& text) {
  std::array<int, kNumSdmDims> seen{};
  for (char letter : text) {
    int dim = -1;
    for (int d = 0; d < kNumSdmDims; ++d)
      if (letter == sdm_dim_key(d)[0]) dim = d;
    if (dim < 0) return fmt::format("'{}' is not one of K, C, N, X, Y", letter);
    if (++seen[size_t(dim)] > 1) return fmt::format("{} appears twice", letter);
  }
  for (int d = 0; d < kNumSdmDims; ++d)
    if (seen[size_t(d)] == 0) return fmt::format("{} is missing", sdm_dim_key(d));
  return {};
}

std::optional<SdmOrder> parse_order(const std::string& text) {
  if (!order_problem(text).empty()) return std::nullopt;
  SdmOrder order{};
  for (size_t i = 0; i < text.size(); ++i)
    for (int d = 0; d < kNumSdmDims; ++d)
      if (text[i] == sdm_dim_key(d)[0]) order[i] = std::uint8_t(d);
  return order;
}

std::string blocks_text(const SdmLevel& sdm) {
  return fmt::format("{},{},{},{},{}", sdm.block[0], sdm.block[1], sdm.block[2], sdm.block[3], sdm.block[4]);
}

std::optional<std::array<std::int64_t, kNumSdmDims>> parse_blocks(const std::string& text) {
  const auto values = parse_integer_list(text, kNumSdmDims);
  if (!values) return std::nullopt;
  std::array<std::int64_t, kNumSdmDims> blocks{};
  for (int dim = 0; dim < kNumSdmDims; ++dim) blocks[size_t(dim)] = (*values)[size_t(dim)];
  return blocks;
}

std::vector<SdmOrder> all_sdm_orders() {
  SdmOrder order = kDefaultSdmOrder;
  std::sort(order.begin(), order.end());
  std::vector<SdmOrder> orders;
  do orders.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  return orders;
}

}  // namespace maeri::contracts
