// FabricConfig: every per-switch configuration field of the MAERI fabric (MN, RN, collector, vn_count), their
// dense bit layout and the config-port words that carry it. This header is the C++ side of the one layout described in
// docs/config-bits.md; rtl/maeri_config_pkg.sv is the SystemVerilog side and a test checks they agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "contracts/config_bus.hpp"
#include "contracts/hardware.hpp"

namespace maeri::codegen {

// One field of a configuration word: bit position (LSB = 0) and width.
struct ConfigField {
  const char* name;
  int lsb;
  int width;
};

// Multiplier switch field (bit positions inside the switch's 2-bit field).
inline constexpr ConfigField kMultActive{"active", 0, 1};
inline constexpr ConfigField kMultTakeForward{"take_forward", 1, 1};
inline constexpr ConfigField kMultSwitchFields[] = {kMultActive, kMultTakeForward};

// Adder switch field (semantics in docs/config-bits.md).
inline constexpr ConfigField kAddCombine{"combine", 0, 1};
inline constexpr ConfigField kAddLinkSend{"link_send", 1, 1};
inline constexpr ConfigField kAddLinkReceive{"link_receive", 2, 1};
inline constexpr ConfigField kAddEmitLeft{"emit_left", 3, 1};
inline constexpr ConfigField kAddEmitRight{"emit_right", 4, 1};
inline constexpr ConfigField kAddUp{"up", 5, 1};
inline constexpr ConfigField kAdderSwitchFields[] = {kAddCombine,  kAddLinkSend,  kAddLinkReceive,
                                                     kAddEmitLeft, kAddEmitRight, kAddUp};

template <std::size_t N>
constexpr int total_width(const ConfigField (&fields)[N]) {
  int bits = 0;
  for (const ConfigField& field : fields) bits += field.width;
  return bits;
}
static_assert(total_width(kMultSwitchFields) == contracts::kMultSwitchConfigBits, "contracts/config_bus.hpp counts these bits");
static_assert(total_width(kAdderSwitchFields) == contracts::kAdderSwitchConfigBits, "contracts/config_bus.hpp counts these bits");

struct MultSwitchConfig {
  bool active = false;
  bool take_forward = false;
};

struct AdderSwitchConfig {
  bool combine = false;       // both children (and a received link value) form one token
  bool link_send = false;     // send the facing token to the link partner
  bool link_receive = false;  // add the partner's token into the facing token
  bool emit_left = false;     // the left (or combined) token is a finished VN result
  bool emit_right = false;    // the right token is a finished VN result
  bool up = false;            // send the parity token (or the combined token) to the parent
};

// Complete configuration of a fabric with num_ms multiplier switches.
struct FabricConfig {
  int num_ms = 0;
  std::vector<MultSwitchConfig> mult_switches;    // num_ms, left to right
  std::vector<AdderSwitchConfig> adder_switches;  // num_ms − 1, heap order: adder (level l, index j) is 2^l − 1 + j
  std::vector<int> collector_slots;               // per VN id: emit slot = 2·adder + side (0 left, 1 right)
};

// The ART's forwarding links join adders (l, j) and (l, j+1) for odd j with j + 1 < 2^l: neighbours with different
// parents (docs/config-bits.md, "Numbering"). The partner of adder j on a level of `width` adders, −1 if none.
inline constexpr int link_partner(int j, int width) {
  const int partner = j % 2 == 1 ? j + 1 : j - 1;
  return partner >= 0 && partner < width ? partner : -1;
}

// Where each field lies in the dense configuration of num_ms switches (docs/config-bits.md), LSB first:
// multiplier switch i at 2i, adder a at 2M + 6a, vn_count, then collector entry k; contracts/config_bus.hpp counts them.
struct ConfigLayout {
  explicit ConfigLayout(std::int64_t num_ms);
  std::int64_t num_ms;
  int vn_count_width, slot_width;
  std::int64_t adder_base, vn_count_lsb, collector_base, bits;
  std::int64_t mult_lsb(std::int64_t ms) const { return ms * contracts::kMultSwitchConfigBits; }
  std::int64_t adder_lsb(std::int64_t adder) const { return adder_base + adder * contracts::kAdderSwitchConfigBits; }
  std::int64_t collector_lsb(std::int64_t vn) const { return collector_base + vn * slot_width; }
};

// A packed configuration: bit b is bit b % 64 of limbs[b / 64]; bits past `size` are zero.
struct ConfigBits {
  std::int64_t size = 0;
  std::vector<std::uint64_t> limbs;
  std::uint64_t get(std::int64_t lsb, int width) const;  // width ≤ 64
  void put(std::int64_t lsb, int width, std::uint64_t value);
  bool operator==(const ConfigBits& other) const { return size == other.size && limbs == other.limbs; }
};

// One config-port write: word `address` of the configuration, config_bw bits (bit j in limbs[j / 64]).
struct ConfigWord {
  std::uint32_t address = 0;
  std::vector<std::uint64_t> limbs;
};

bool operator==(const MultSwitchConfig& a, const MultSwitchConfig& b);
bool operator==(const AdderSwitchConfig& a, const AdderSwitchConfig& b);
bool operator==(const FabricConfig& a, const FabricConfig& b);

// One switch field as an integer (bit i = the field with lsb i) and back.
unsigned encode(const MultSwitchConfig& config);
unsigned encode(const AdderSwitchConfig& config);
MultSwitchConfig decode_mult_switch(unsigned bits);
AdderSwitchConfig decode_adder_switch(unsigned bits);

// The dense configuration (collector entries beyond the VN count are 0, so no stale entry survives a
// reconfiguration) and its inverse; unpack_config throws std::invalid_argument on vn_count > num_ms or a collector
// slot ≥ 2(num_ms − 1), naming the field.
ConfigBits pack_config(const FabricConfig& config);
FabricConfig unpack_config(std::int64_t num_ms, const ConfigBits& bits);

// The config-port writes of a full configuration: contracts::configuration_words(num_ms, config_bw) words, in address
// order, the last one padded with zeros.
std::vector<ConfigWord> config_words(const FabricConfig& config, int config_bw);

// The image form: the words' bytes, little-endian (config_bw / 8 bytes a word), and back; config_from_bytes
// throws std::invalid_argument when the size is not the word count's or a padding bit is set.
std::vector<std::uint8_t> config_bytes(const FabricConfig& config, int config_bw);
FabricConfig config_from_bytes(std::int64_t num_ms, int config_bw, const std::uint8_t* bytes, std::size_t size);

// Short readable form of an adder word, e.g. "combine,send,up".
std::string describe(const AdderSwitchConfig& config);

}  // namespace maeri::codegen
