// A hash for fixed-size arrays of integers, so that std::unordered_map / unordered_set can key on them (a std::map of
// such keys costs a tree walk of element-wise comparisons per lookup, which per-phase bookkeeping pays thousands of
// times). Each element is mixed in with the splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace maeri::util {

struct ArrayHash {
  template <class Integer, std::size_t N>
  std::size_t operator()(const std::array<Integer, N>& key) const {
    std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
    for (const Integer value : key) {
      std::uint64_t mixed = hash + 0x9e3779b97f4a7c15ULL + std::uint64_t(value);
      mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ULL;
      mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebULL;
      hash = mixed ^ (mixed >> 31);
    }
    return std::size_t(hash);
  }
};

}  // namespace maeri::util
