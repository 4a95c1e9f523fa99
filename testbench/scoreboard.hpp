// Scoreboard: compares every output of a co-simulated layer with the reference convolution, bit-exactly, and
// keeps the first mismatches with their tensor indices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/layer.hpp"

namespace maeri::testbench {

struct Mismatch {
  std::int64_t n, k, x, y;
  std::int64_t expected, got;
};

struct Scoreboard {
  std::int64_t compared = 0;
  std::int64_t mismatches = 0;
  std::vector<Mismatch> first;  // at most `keep`
  bool pass() const { return compared > 0 && mismatches == 0; }
  std::string summary() const;  // "PASS (1234 outputs bit-exact)" or "FAIL: 3 of 1234 differ; first at …"
};

Scoreboard score_outputs(const contracts::Layer& layer, const std::vector<std::int64_t>& expected,
                         const std::vector<std::int64_t>& got, int keep = 5);

}  // namespace maeri::testbench
