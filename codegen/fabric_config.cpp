// Packing and unpacking of the fabric's dense configuration and its config-port words (layout in
// fabric_config.hpp, docs/config-bits.md).
#include "codegen/fabric_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "util/integer_math.hpp"

namespace maeri::codegen {
namespace {

unsigned put(unsigned word, ConfigField field, unsigned value) {
  const unsigned mask = (1u << field.width) - 1u;
  return word | ((value & mask) << field.lsb);
}

unsigned get(unsigned word, ConfigField field) { return (word >> field.lsb) & ((1u << field.width) - 1u); }

std::uint64_t low_mask(int width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }

void check_bus_width(int config_bw) {
  if (!util::is_power_of_two(config_bw) || config_bw < contracts::kMinConfigBusBits || config_bw > contracts::kMaxConfigBusBits)
    throw std::invalid_argument(fmt::format("config_bw {} is not a power of two in {}..{}", config_bw,
                                            contracts::kMinConfigBusBits, contracts::kMaxConfigBusBits));
}

}  // namespace

ConfigLayout::ConfigLayout(std::int64_t m)
    : num_ms(m),
      vn_count_width(contracts::vn_count_bits(m)),
      slot_width(contracts::collector_slot_bits(m)),
      adder_base(m * contracts::kMultSwitchConfigBits),
      vn_count_lsb(adder_base + (m - 1) * contracts::kAdderSwitchConfigBits),
      collector_base(vn_count_lsb + vn_count_width),
      bits(collector_base + m * slot_width) {}

std::uint64_t ConfigBits::get(std::int64_t lsb, int width) const {
  std::uint64_t value = 0;
  for (int done = 0; done < width;) {  // at most two limbs
    const std::int64_t bit = lsb + done;
    const int shift = int(bit % 64), take = std::min(width - done, 64 - shift);
    value |= ((limbs.at(std::size_t(bit / 64)) >> shift) & low_mask(take)) << done;
    done += take;
  }
  return value;
}

void ConfigBits::put(std::int64_t lsb, int width, std::uint64_t value) {
  for (int done = 0; done < width;) {
    const std::int64_t bit = lsb + done;
    const int shift = int(bit % 64), take = std::min(width - done, 64 - shift);
    std::uint64_t& limb = limbs.at(std::size_t(bit / 64));
    limb = (limb & ~(low_mask(take) << shift)) | (((value >> done) & low_mask(take)) << shift);
    done += take;
  }
}

bool operator==(const MultSwitchConfig& a, const MultSwitchConfig& b) {
  return a.active == b.active && a.take_forward == b.take_forward;
}
bool operator==(const AdderSwitchConfig& a, const AdderSwitchConfig& b) { return encode(a) == encode(b); }
bool operator==(const FabricConfig& a, const FabricConfig& b) {
  return a.num_ms == b.num_ms && a.mult_switches == b.mult_switches && a.adder_switches == b.adder_switches &&
         a.collector_slots == b.collector_slots;
}

unsigned encode(const MultSwitchConfig& config) {
  unsigned word = 0;
  word = put(word, kMultActive, config.active);
  word = put(word, kMultTakeForward, config.take_forward);
  return word;
}

unsigned encode(const AdderSwitchConfig& config) {
  unsigned word = 0;
  word = put(word, kAddCombine, config.combine);
  word = put(word, kAddLinkSend, config.link_send);
  word = put(word, kAddLinkReceive, config.link_receive);
  word = put(word, kAddEmitLeft, config.emit_left);
  word = put(word, kAddEmitRight, config.emit_right);
  word = put(word, kAddUp, config.up);
  return word;
}

MultSwitchConfig decode_mult_switch(unsigned word) {
  return {get(word, kMultActive) != 0, get(word, kMultTakeForward) != 0};
}

AdderSwitchConfig decode_adder_switch(unsigned word) {
  AdderSwitchConfig config;
  config.combine = get(word, kAddCombine);
  config.link_send = get(word, kAddLinkSend);
  config.link_receive = get(word, kAddLinkReceive);
  config.emit_left = get(word, kAddEmitLeft);
  config.emit_right = get(word, kAddEmitRight);
  config.up = get(word, kAddUp);
  return config;
}

ConfigBits pack_config(const FabricConfig& config) {
  const std::int64_t m = config.num_ms;
  const ConfigLayout layout(m);
  ConfigBits bits;
  bits.size = layout.bits;
  bits.limbs.assign(std::size_t(util::ceil_div(layout.bits, 64)), 0);
  for (std::int64_t i = 0; i < m; ++i)
    bits.put(layout.mult_lsb(i), contracts::kMultSwitchConfigBits, encode(config.mult_switches.at(std::size_t(i))));
  for (std::int64_t a = 0; a < m - 1; ++a)
    bits.put(layout.adder_lsb(a), contracts::kAdderSwitchConfigBits, encode(config.adder_switches.at(std::size_t(a))));
  bits.put(layout.vn_count_lsb, layout.vn_count_width, config.collector_slots.size());
  for (std::size_t k = 0; k < config.collector_slots.size(); ++k)
    bits.put(layout.collector_lsb(std::int64_t(k)), layout.slot_width, std::uint64_t(config.collector_slots[k]));
  return bits;
}

FabricConfig unpack_config(std::int64_t m, const ConfigBits& bits) {
  const ConfigLayout layout(m);
  if (bits.size != layout.bits)
    throw std::invalid_argument(fmt::format("{} configuration bits, expected {} for {} MS", bits.size, layout.bits, m));
  FabricConfig config;
  config.num_ms = int(m);
  for (std::int64_t i = 0; i < m; ++i)
    config.mult_switches.push_back(decode_mult_switch(unsigned(bits.get(layout.mult_lsb(i), contracts::kMultSwitchConfigBits))));
  for (std::int64_t a = 0; a < m - 1; ++a)
    config.adder_switches.push_back(
        decode_adder_switch(unsigned(bits.get(layout.adder_lsb(a), contracts::kAdderSwitchConfigBits))));
  const std::int64_t vn_count = std::int64_t(bits.get(layout.vn_count_lsb, layout.vn_count_width));
  if (vn_count > m) throw std::invalid_argument(fmt::format("vn_count {} exceeds num_ms {}", vn_count, m));
  for (std::int64_t k = 0; k < m; ++k) {
    const std::int64_t slot = std::int64_t(bits.get(layout.collector_lsb(k), layout.slot_width));
    if (slot >= 2 * (m - 1))
      throw std::invalid_argument(
          fmt::format("collector entry {} names slot {}, beyond the last slot {}", k, slot, 2 * (m - 1) - 1));
    if (k < vn_count) config.collector_slots.push_back(int(slot));
  }
  return config;
}

std::vector<ConfigWord> config_words(const FabricConfig& config, int config_bw) {
  check_bus_width(config_bw);
  const ConfigBits bits = pack_config(config);
  const std::int64_t words = contracts::configuration_words(config.num_ms, config_bw);
  std::vector<ConfigWord> result;
  result.reserve(std::size_t(words));
  for (std::int64_t w = 0; w < words; ++w) {
    ConfigWord word;
    word.address = std::uint32_t(w);
    for (int part = 0; part < config_bw; part += 64) {
      const std::int64_t lsb = w * config_bw + part;
      const int width = int(std::min<std::int64_t>({64, config_bw - part, std::max<std::int64_t>(0, bits.size - lsb)}));
      word.limbs.push_back(width > 0 ? bits.get(lsb, width) : 0);
    }
    result.push_back(std::move(word));
  }
  return result;
}

std::vector<std::uint8_t> config_bytes(const FabricConfig& config, int config_bw) {
  std::vector<std::uint8_t> bytes;
  for (const ConfigWord& word : config_words(config, config_bw))
    for (int b = 0; b < config_bw / 8; ++b) bytes.push_back(std::uint8_t(word.limbs[std::size_t(b / 8)] >> (8 * (b % 8))));
  return bytes;
}

FabricConfig config_from_bytes(std::int64_t m, int config_bw, const std::uint8_t* bytes, std::size_t size) {
  check_bus_width(config_bw);
  const ConfigLayout layout(m);
  const std::size_t expected = std::size_t(contracts::configuration_words(m, config_bw) * (config_bw / 8));
  if (size != expected)
    throw std::invalid_argument(fmt::format("{} configuration bytes, expected {} for {} MS at config_bw {}", size,
                                            expected, m, config_bw));
  ConfigBits bits;
  bits.size = layout.bits;
  bits.limbs.assign(std::size_t(util::ceil_div(std::int64_t(size) * 8, 64)), 0);
  for (std::size_t b = 0; b < size; ++b) bits.limbs[b / 8] |= std::uint64_t(bytes[b]) << (8 * (b % 8));
  for (std::int64_t bit = layout.bits; bit < std::int64_t(size) * 8; ++bit)
    if (bits.get(bit, 1))
      throw std::invalid_argument(fmt::format("padding bit {} of the last word is set (the configuration has {} bits)",
                                              bit, layout.bits));
  bits.limbs.resize(std::size_t(util::ceil_div(layout.bits, 64)));
  return unpack_config(m, bits);
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
