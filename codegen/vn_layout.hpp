// VnLayout: where the virtual neurons (VNs) of one configuration sit on the multiplier switches.
// A VN is a run of contiguous multiplier switches whose products reduce to one result; VNs may have any
// size 1…num_ms, need not be equal, and may leave switches idle between them. VNs are numbered left to
// right; that number is the VN id the fabric tags each result with.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace maeri::codegen {

struct VnPlacement {
  int first_ms = 0;  // leftmost multiplier switch of the VN
  int size = 0;      // number of multiplier switches
};

struct VnLayout {
  int num_ms = 0;
  std::vector<VnPlacement> vns;  // ordered by first_ms

  // `count` VNs of `size` switches packed from `first_ms` with no gap (the layout a mapping produces).
  static VnLayout packed(int num_ms, int size, int count, int first_ms = 0);
};

// Thrown for a layout no fabric can hold: overlap, out of range, empty VN, unordered list.
class LayoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks the layout and throws LayoutError naming the VN and the rule it breaks.
void validate_layout(const VnLayout& layout);

// Switch → VN id (−1 for idle switches); validates first.
std::vector<int> vn_of_switch(const VnLayout& layout);

}  // namespace maeri::codegen
