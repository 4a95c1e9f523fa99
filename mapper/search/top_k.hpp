// The search's bounded best-first list of reports (top-k under `better`), with the deferred refinement of exact
// traffic for the runtime objective (below). Its own file so its tests can drive it with adversarial orders.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "contracts/cost_report.hpp"
#include "mapper/search/objective.hpp"

namespace maeri::mapper {

// A bounded best-first list; k is small (tens), so sorted insertion is cheapest.
//
// `deferred` (runtime objective with exact traffic): reports may come with only the lower bounds of their traversal
// counts, hence of their energy; cycles do not depend on them. Energy only breaks ties in cycles, so a report
// gets its exact counts (`refine`) only when that decides something: when it ties in cycles with the k-th report
// (that group is refined and the report enters only if it then beats the k-th), when the list must drop one of
// several reports tied in cycles at its end, and at the end (`refine_all`) for the k reports kept. The list is
// then the exact top-k with far fewer exact counts than refining every report that enters on the way
// (docs/model.md, "Search").
class TopK {
 public:
  TopK(std::size_t k, Objective objective, bool deferred = false) : k_(k), objective_(objective), deferred_(deferred) {}
  bool would_accept(const contracts::CostReport& report) const {
    return items_.size() < k_ || better(report, items_.back(), objective_);
  }
  void offer(const contracts::CostReport& report) {
    if (!would_accept(report)) return;
    insert(report, true);
    if (items_.size() > k_) pop();
  }
  // `exact`: whether `report` already has its exact counts.
  template <typename Refine>
  void offer(const contracts::CostReport& report, bool exact, Refine&& refine) {
    if (!deferred_) return offer(report);
    const double cycles = report.cycles.total;
    if (items_.size() >= k_) {
      // The list orders different cycles correctly whatever the energies: only the k-th's group is uncertain.
      const double kth_cycles = items_[k_ - 1].cycles.total;
      if (cycles > kth_cycles) return;
      if (cycles == kth_cycles) {
        refine_group(kth_cycles, refine);
        if (!would_accept(report)) return;  // a bound that cannot beat the k-th: neither can the exact report
        contracts::CostReport refined = report;
        if (!exact) refine(refined);
        if (!would_accept(refined)) return;
        insert(refined, true);
        pop();
        return;
      }
    }
    insert(report, exact);
    if (items_.size() <= k_) return;
    const double last_cycles = items_.back().cycles.total;
    if (items_[items_.size() - 2].cycles.total == last_cycles) refine_group(last_cycles, refine);
    pop();
  }
  template <typename Refine>
  void refine_all(Refine&& refine) {
    for (std::size_t i = 0; i < items_.size(); ++i)
      if (!exact_[i]) {
        refine(items_[i]);
        exact_[i] = true;
      }
    sort();
  }
  const std::vector<contracts::CostReport>& items() const { return items_; }
  bool exact(std::size_t i) const { return exact_[i]; }
  // The k-th report (the one a report must beat), if the list is full.
  const contracts::CostReport* kth() const { return items_.size() >= k_ ? &items_[k_ - 1] : nullptr; }

 private:
  void insert(const contracts::CostReport& report, bool exact) {
    const auto at = std::upper_bound(items_.begin(), items_.end(), report,
                                     [this](const contracts::CostReport& a, const contracts::CostReport& b) {
                                       return better(a, b, objective_);
                                     });
    exact_.insert(exact_.begin() + (at - items_.begin()), exact);
    items_.insert(at, report);
  }
  void pop() {
    items_.pop_back();
    exact_.pop_back();
  }
  template <typename Refine>
  void refine_group(double cycles, Refine&& refine) {
    bool changed = false;
    for (std::size_t i = 0; i < items_.size(); ++i)
      if (items_[i].cycles.total == cycles && !exact_[i]) {
        refine(items_[i]);
        exact_[i] = true;
        changed = true;
      }
    if (changed) sort();
  }
  void sort() {
    std::vector<std::size_t> order(items_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [this](std::size_t a, std::size_t b) { return better(items_[a], items_[b], objective_); });
    std::vector<contracts::CostReport> items;
    std::vector<char> exact;
    for (const std::size_t i : order) {
      items.push_back(items_[i]);
      exact.push_back(exact_[i]);
    }
    items_.swap(items);
    exact_.swap(exact);
  }

  std::size_t k_;
  Objective objective_;
  bool deferred_;
  std::vector<contracts::CostReport> items_;
  std::vector<char> exact_;
};

}  // namespace maeri::mapper
