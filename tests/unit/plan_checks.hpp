// Test helper: two memory plans equal field by field (budget and every event), with the first differing event named.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>

#include "timing/memory_plan.hpp"

namespace maeri::test {

inline void require_equal_plans(const timing::MemoryPlan& a, const timing::MemoryPlan& b) {
  REQUIRE(a.budget.resident == b.budget.resident);
  REQUIRE(a.budget.blocked == b.budget.blocked);
  REQUIRE(a.budget.stream_buffer_bytes == b.budget.stream_buffer_bytes);
  REQUIRE(a.budget.output_buffer_bytes == b.budget.output_buffer_bytes);
  REQUIRE(a.events.size() == b.events.size());
  for (std::size_t e = 0; e < a.events.size(); ++e) {
    const timing::MemoryEvent &x = a.events[e], &y = b.events[e];
    // Plain comparisons first (real layers have millions of events); the field that differs is named below.
    if (x.weights == y.weights && x.slice == y.slice && x.read_bytes == y.read_bytes && x.held_bytes == y.held_bytes &&
        x.fill_elements == y.fill_elements && x.hold == y.hold && x.sdm_reads == y.sdm_reads &&
        x.staging_bytes == y.staging_bytes && x.psum_reads == y.psum_reads && x.output_writes == y.output_writes &&
        x.write_bytes == y.write_bytes)
      continue;
    INFO("event " << e);
    REQUIRE(x.weights == y.weights);
    REQUIRE(x.slice == y.slice);
    REQUIRE(x.read_bytes == y.read_bytes);
    REQUIRE(x.held_bytes == y.held_bytes);
    REQUIRE(x.fill_elements == y.fill_elements);
    REQUIRE(x.hold == y.hold);
    REQUIRE(x.sdm_reads == y.sdm_reads);
    REQUIRE(x.staging_bytes == y.staging_bytes);
    REQUIRE(x.psum_reads == y.psum_reads);
    REQUIRE(x.output_writes == y.output_writes);
    REQUIRE(x.write_bytes == y.write_bytes);
  }
}

}  // namespace maeri::test
