// Reading a real number from text the one way every reader of this project does (YAML number fields, CSV tables,
// the optimum cache): plain decimal with an optional '-', a fraction and an exponent — no '+', no spaces, no hex
// ("0x10"), no "inf" or "nan" — so a value means the same in every file and a typo is refused, not reinterpreted.
#pragma once

#include <optional>
#include <string_view>

namespace maeri::util {

// The finite number `text` spells, or nullopt. A value below the smallest subnormal reads as the nearest double
// (0 or a subnormal, as strtod gives); one beyond the largest double is refused.
std::optional<double> decimal_number(std::string_view text);

}  // namespace maeri::util
