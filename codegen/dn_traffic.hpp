// DN traffic of one element, as the fabric's COUNT_DN_TRAVERSALS counter counts it (docs/rtl.md): at the fat
// levels of the tree and at the conversion level an element enters each switch whose leaves include one of
// its destinations once; below the conversion level every destination has its own lane, one arrival per level.
#pragma once

#include <cstdint>
#include <vector>

namespace maeri::codegen {

// Level of the DN tree whose children first have fewer leaves than dn_bw lanes (contracts::dn_conversion_level).
int dn_conversion_level(int num_ms, int dn_bw);

std::int64_t dn_traversals(int num_ms, int dn_bw, const std::vector<int>& destinations);

// The elements and traversals of many elements at once.
struct DnTraffic {
  std::int64_t elements = 0, traversals = 0;
};

// The uses of some elements, one per (element, destination) as (source << ms_bits) | switch with ms_bits =
// dn_key_bits(num_ms) (source: any number naming the element), and the scratch their sort needs: a caller's
// buffers, reused from call to call.
struct DnUseKeys {
  std::vector<std::uint64_t> keys, scratch;
};

// The traffic of the elements whose uses are `uses.keys`: the same as Σ dn_traversals over the elements' destination
// lists, without building them. Sorts the keys (a radix sort when their range is small, as a step's is); one pass
// instead of one scan per level: of two consecutive destinations a < b of an element, b enters a new switch at level
// l exactly when a >> (L − l) ≠ b >> (L − l), i.e. when l ≥ L − h, h the highest bit of a ^ b.
DnTraffic dn_traffic_of_uses(int num_ms, int dn_bw, DnUseKeys& uses);
// The bits a switch index takes in a key; sources up to dn_max_key_source(num_ms) fit in the rest.
int dn_key_bits(int num_ms);
std::uint64_t dn_max_key_source(int num_ms);

}  // namespace maeri::codegen
