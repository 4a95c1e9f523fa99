// FabricConfig: every per-switch configuration word of the MAERI fabric (MN, RN, collector, global) and
// their bit layout and config-port address map. This header is the C++ side of the one layout described in
// docs/config-bits.md; rtl/maeri_config_pkg.sv is the SystemVerilog side and a test checks they agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/hardware.hpp"

namespace maeri::codegen {

// One field of a configuration word: bit position (LSB = 0) and width.
struct ConfigField {
  const char* name;
  int lsb;
  int width;
};

inline constexpr int kConfigWordBits = 16;

// Multiplier switch word.
inline constexpr ConfigField kMultActive{"active", 0, 1};
inline constexpr ConfigField kMultTakeForward{"take_forward", 1, 1};
inline constexpr ConfigField kMultSwitchFields[] = {kMultActive, kMultTakeForward};

// Adder switch word (semantics in docs/config-bits.md).
inline constexpr ConfigField kAddCombine{"combine", 0, 1};
inline constexpr ConfigField kAddLinkSend{"link_send", 1, 1};
inline constexpr ConfigField kAddLinkReceive{"link_receive", 2, 1};
inline constexpr ConfigField kAddEmitLeft{"emit_left", 3, 1};
inline constexpr ConfigField kAddEmitRight{"emit_right", 4, 1};
inline constexpr ConfigField kAddUp{"up", 5, 1};
inline constexpr ConfigField kAdderSwitchFields[] = {kAddCombine,  kAddLinkSend,  kAddLinkReceive,
                                                     kAddEmitLeft, kAddEmitRight, kAddUp};

// Global word: how many VN results each step produces (the collector drains entries 0..vn_count-1).
inline constexpr ConfigField kGlobalVnCount{"vn_count", 0, 10};
inline constexpr ConfigField kGlobalFields[] = {kGlobalVnCount};

// Collector entry k: the emit slot (2·adder + side) that holds VN k's result.
inline constexpr ConfigField kCollectSlot{"slot", 0, 10};
inline constexpr ConfigField kCollectorFields[] = {kCollectSlot};

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

// Config port addresses (one 16-bit word per write):
//   0 … M−1            multiplier switch i
//   M … 2M−2           adder switch a (address M + a)
//   2M−1               global word
//   2M … 3M−1          collector entry k (address 2M + k)
struct ConfigWrite {
  uint32_t address = 0;
  uint16_t data = 0;
};

inline constexpr uint32_t mult_switch_address(int /*num_ms*/, int ms) { return uint32_t(ms); }
inline constexpr uint32_t adder_switch_address(int num_ms, int adder) { return uint32_t(num_ms + adder); }
inline constexpr uint32_t global_word_address(int num_ms) { return uint32_t(2 * num_ms - 1); }
inline constexpr uint32_t collector_address(int num_ms, int vn) { return uint32_t(2 * num_ms + vn); }
inline constexpr int config_address_space(int num_ms) { return int(spec::configuration_words(num_ms)); }

bool operator==(const MultSwitchConfig& a, const MultSwitchConfig& b);
bool operator==(const AdderSwitchConfig& a, const AdderSwitchConfig& b);
bool operator==(const FabricConfig& a, const FabricConfig& b);
bool operator==(const ConfigWrite& a, const ConfigWrite& b);

uint16_t encode(const MultSwitchConfig& config);
uint16_t encode(const AdderSwitchConfig& config);
MultSwitchConfig decode_mult_switch(uint16_t word);
AdderSwitchConfig decode_adder_switch(uint16_t word);

// Every word of the configuration, in address order: a full configuration is 3·num_ms writes
// (collector entries beyond the VN count are written as 0 so no stale entry survives).
std::vector<ConfigWrite> config_writes(const FabricConfig& config);
// Inverse of config_writes; throws std::invalid_argument on an address outside the map or a bad field.
FabricConfig decode_config_writes(int num_ms, const std::vector<ConfigWrite>& writes);

// Short readable form of an adder word, e.g. "combine,send,up".
std::string describe(const AdderSwitchConfig& config);

}  // namespace maeri::codegen
