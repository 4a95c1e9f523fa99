// How long a chained run (testbench/network_run.hpp) must hold each tensor of a network: until the last operator
// that reads it has run, or to the end for a network output (docs/cosim.md, "Chained network runs": memory). The
// run and its references free every other tensor after its last reader, so a run holds what is live, not the whole
// network's tensors.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "contracts/network.hpp"

namespace maeri::testbench {

class TensorLifetimes {
 public:
  explicit TensorLifetimes(const contracts::Network& network);
  // The tensors whose last reader is operator `op` and that are not network outputs: free once `op` has run.
  const std::vector<std::size_t>& dead_after(std::size_t op) const { return dead_after_[op]; }
  // Whether nothing reads tensor `t` and it is not an output: free as soon as it is made (and checked).
  bool unread(std::size_t t) const { return unread_[t]; }

 private:
  std::vector<std::vector<std::size_t>> dead_after_;
  std::vector<bool> unread_;
};

// Frees tensor t's values (capacity included) once `lifetimes` says operator `op` was its last reader.
template <class Tensors>
void free_dead_inputs(const TensorLifetimes& lifetimes, std::size_t op, Tensors& tensors) {
  for (std::size_t t : lifetimes.dead_after(op)) {
    using Values = std::decay_t<decltype(tensors[t])>;
    Values().swap(tensors[t]);
  }
}

}  // namespace maeri::testbench
