// Text helpers of the HTML report: escaping of user text, labels cut to fit a box without breaking a UTF-8
// character, numbers written for people, and the colour of each virtual neuron.
#pragma once

#include <cstddef>
#include <string>

namespace maeri::report {

// Text safe inside HTML/SVG elements and double-quoted attributes (& < > " and ').
std::string escaped(const std::string& text);

// `text` cut to at most `max_chars` characters (UTF-8 code points) with "…" at the end when cut; not escaped.
std::string short_label(const std::string& text, std::size_t max_chars);

// 1234567 as "1,234,567"; a fraction with up to 3 decimals below 1000 ("0.125", "12.5"), one above
// ("3,145,966.3"); beyond 1e15 (or not finite) in exponent form.
std::string number_text(double value);

// A colour per VN id that tells neighbouring VNs apart (hue steps of the golden angle, two lightnesses).
std::string vn_colour(int vn);

}  // namespace maeri::report
