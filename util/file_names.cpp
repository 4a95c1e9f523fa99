// Safe, unique file names from input names (see file_names.hpp).
#include "util/file_names.hpp"

#include <cctype>
#include <set>

namespace maeri::util {
namespace {

constexpr std::size_t kMaxStemBytes = 100;

std::string folded(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace

std::string safe_file_stem(const std::string& name) {
  std::string stem;
  for (const char c : name.substr(0, kMaxStemBytes)) {
    const unsigned char byte = static_cast<unsigned char>(c);
    const bool safe = (byte < 0x80 && std::isalnum(byte)) || c == '-' || c == '_' || (c == '.' && !stem.empty());
    stem += safe ? c : '_';
  }
  return stem.empty() ? "_" : stem;
}

std::vector<std::string> unique_file_stems(const std::vector<std::string>& names,
                                           const std::vector<std::string>& suffixes) {
  std::vector<std::string> stems;
  std::set<std::string> taken;  // every file a stem so far stands for, case-folded
  const auto free = [&](const std::string& stem) {
    for (const std::string& suffix : suffixes)
      if (taken.count(folded(stem + suffix))) return false;
    return true;
  };
  for (const std::string& name : names) {
    const std::string base = safe_file_stem(name);
    std::string stem = base;
    for (int suffix = 2; !free(stem); ++suffix) stem = base + "-" + std::to_string(suffix);
    for (const std::string& suffix : suffixes) taken.insert(folded(stem + suffix));
    stems.push_back(stem);
  }
  return stems;
}

}  // namespace maeri::util
