// The configuration bus of a MAERI fabric: how many bits one full configuration has and how many cycles it takes
// to write them config_bw bits per cycle (docs/config-bits.md). The one home of these counts: the cost model, the
// image format, the codegen packer, the image validator and the RTL tests all call them, and the SystemVerilog
// side (rtl/config_registers.sv) computes the same sums from the same widths (checked by a unit test).
#pragma once

#include <cstdint>

#include "util/integer_math.hpp"

namespace maeri::contracts {

// config_bw: bits written per cycle, a power of two in [kMinConfigBusBits, kMaxConfigBusBits]; the hardware spec's
// optional `config_bw` defaults to kDefaultConfigBusBits (docs/hardware-spec.md).
inline constexpr std::int64_t kMinConfigBusBits = 16;
inline constexpr std::int64_t kMaxConfigBusBits = 512;
inline constexpr std::int64_t kDefaultConfigBusBits = 64;

// Bits of one multiplier switch's and one adder switch's configuration (the field tables of
// codegen/fabric_config.hpp add up to these; a static_assert there checks it).
inline constexpr int kMultSwitchConfigBits = 2;
inline constexpr int kAdderSwitchConfigBits = 6;

// vn_count holds 0 … num_ms; a collector entry holds an emit slot 0 … 2·(num_ms − 1) − 1.
constexpr int vn_count_bits(std::int64_t num_ms) { return util::ceil_log2(num_ms + 1); }
constexpr int collector_slot_bits(std::int64_t num_ms) { return util::ceil_log2(2 * (num_ms - 1)); }

// Bits of one full configuration, packed densely (layout in docs/config-bits.md): num_ms multiplier-switch fields,
// num_ms − 1 adder-switch fields, vn_count and num_ms collector entries.
constexpr std::int64_t configuration_bits(std::int64_t num_ms) {
  return num_ms * kMultSwitchConfigBits + (num_ms - 1) * kAdderSwitchConfigBits + vn_count_bits(num_ms) +
         num_ms * collector_slot_bits(num_ms);
}

// Bits of the config port's word address: at least one, so that a one-word configuration still has a port.
constexpr int config_address_bits(std::int64_t words) { return words > 1 ? util::ceil_log2(words) : 1; }

// Words of config_bw bits that carry one configuration (the last one padded with zeros); the config port takes one
// word per cycle, so this is also the cycles of a full reconfiguration, with no fixed latency: the cycle after the
// last word, the fabric runs with the new configuration.
constexpr std::int64_t configuration_words(std::int64_t num_ms, std::int64_t config_bw) {
  return util::ceil_div(configuration_bits(num_ms), config_bw);
}

}  // namespace maeri::contracts
