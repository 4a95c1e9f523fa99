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

}  // namespace maeri::codegen
