// Encoding and decoding of the fabric's configuration words (layout in fabric_config.hpp).
#include "codegen/fabric_config.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace maeri::codegen {
namespace {

uint16_t put(uint16_t word, ConfigField field, unsigned value) {
  const unsigned mask = (1u << field.width) - 1u;
  return uint16_t(word | ((value & mask) << field.lsb));
}

unsigned get(uint16_t word, ConfigField field) { return (word >> field.lsb) & ((1u << field.width) - 1u); }

}  // namespace

bool operator==(const MultSwitchConfig& a, const MultSwitchConfig& b) {
  return a.active == b.active && a.take_forward == b.take_forward;
}
bool operator==(const AdderSwitchConfig& a, const AdderSwitchConfig& b) { return encode(a) == encode(b); }
bool operator==(const FabricConfig& a, const FabricConfig& b) {
  return a.num_ms == b.num_ms && a.mult_switches == b.mult_switches && a.adder_switches == b.adder_switches &&
         a.collector_slots == b.collector_slots;
}
bool operator==(const ConfigWrite& a, const ConfigWrite& b) { return a.address == b.address && a.data == b.data; }

uint16_t encode(const MultSwitchConfig& config) {
  uint16_t word = 0;
  word = put(word, kMultActive, config.active);
  word = put(word, kMultTakeForward, config.take_forward);
  return word;
}

uint16_t encode(const AdderSwitchConfig& config) {
  uint16_t word = 0;
  word = put(word, kAddCombine, config.combine);
  word = put(word, kAddLinkSend, config.link_send);
  word = put(word, kAddLinkReceive, config.link_receive);
  word = put(word, kAddEmitLeft, config.emit_left);
  word = put(word, kAddEmitRight, config.emit_right);
  word = put(word, kAddUp, config.up);
  return word;
}

MultSwitchConfig decode_mult_switch(uint16_t word) {
  if (word >> 2) throw std::invalid_argument(fmt::format("multiplier switch word 0x{:04x} sets unused bits", word));
  return {get(word, kMultActive) != 0, get(word, kMultTakeForward) != 0};
}

AdderSwitchConfig decode_adder_switch(uint16_t word) {
  if (word >> 6) throw std::invalid_argument(fmt::format("adder switch word 0x{:04x} sets unused bits", word));
  AdderSwitchConfig config;
  config.combine = get(word, kAddCombine);
  config.link_send = get(word, kAddLinkSend);
  config.link_receive = get(word, kAddLinkReceive);
  config.emit_left = get(word, kAddEmitLeft);
  config.emit_right = get(word, kAddEmitRight);
  config.up = get(word, kAddUp);
  return config;
}

std::vector<ConfigWrite> config_writes(const FabricConfig& config) {
  const int m = config.num_ms;
  std::vector<ConfigWrite> writes;
  writes.reserve(size_t(config_address_space(m)));
  for (int i = 0; i < m; ++i) writes.push_back({mult_switch_address(m, i), encode(config.mult_switches.at(size_t(i)))});
  for (int a = 0; a < m - 1; ++a)
    writes.push_back({adder_switch_address(m, a), encode(config.adder_switches.at(size_t(a)))});
  writes.push_back({global_word_address(m), put(0, kGlobalVnCount, unsigned(config.collector_slots.size()))});
  for (int k = 0; k < m; ++k) {
    const unsigned slot = k < int(config.collector_slots.size()) ? unsigned(config.collector_slots[size_t(k)]) : 0u;
    writes.push_back({collector_address(m, k), put(0, kCollectSlot, slot)});
  }
  return writes;
}

FabricConfig decode_config_writes(int num_ms, const std::vector<ConfigWrite>& writes) {
  const int m = num_ms;
  FabricConfig config;
  config.num_ms = m;
  config.mult_switches.assign(size_t(m), {});
  config.adder_switches.assign(size_t(m - 1), {});
  std::vector<int> collector(size_t(m), 0);
  int vn_count = 0;
  for (const ConfigWrite& write : writes) {
    const int address = int(write.address);
    if (address < m) {
      config.mult_switches[size_t(address)] = decode_mult_switch(write.data);
    } else if (address < 2 * m - 1) {
      config.adder_switches[size_t(address - m)] = decode_adder_switch(write.data);
    } else if (address == 2 * m - 1) {
      vn_count = int(get(write.data, kGlobalVnCount));
      if (vn_count > m) throw std::invalid_argument(fmt::format("vn_count {} exceeds num_ms {}", vn_count, m));
    } else if (address < config_address_space(m)) {
      const int slot = int(get(write.data, kCollectSlot));
      if (slot >= 2 * (m - 1))
        throw std::invalid_argument(fmt::format("collector entry {} names slot {}, beyond the last slot {}",
                                                address - 2 * m, slot, 2 * (m - 1) - 1));
      collector[size_t(address - 2 * m)] = slot;
    } else {
      throw std::invalid_argument(fmt::format("config address {} is outside 0..{}", address, config_address_space(m) - 1));
    }
  }
  config.collector_slots.assign(collector.begin(), collector.begin() + vn_count);
  return config;
}

std::string describe(const AdderSwitchConfig& config) {
  std::string text;
  auto add = [&text](bool on, const char* name) {
    if (!on) return;
    if (!text.empty()) text += ',';
    text += name;
  };
  add(config.combine, "combine");
  add(config.link_send, "send");
  add(config.link_receive, "receive");
  add(config.emit_left, "emit_left");
  add(config.emit_right, "emit_right");
  add(config.up, "up");
  return text.empty() ? "idle" : text;
}

}  // namespace maeri::codegen
