// The options of `maeri map`'s heuristic searches (map_search.hpp).
#include "cli/map_search.hpp"

namespace maeri::cli {

void add_map_search_options(CLI::App* command, mapper::HeuristicMapping& options) {
  command->add_option("--search", options.method, "search method: exhaustive, random, sa, ga or surrogate (docs/search.md)")
      ->check(CLI::IsMember({"exhaustive", "random", "sa", "ga", "surrogate"}))
      ->capture_default_str();
  command->add_option("--budget", options.budget, "with a heuristic --search: model evaluations per run")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40))
      ->capture_default_str();
  command->add_option("--runs", options.runs, "with a heuristic --search: runs per layer (seeds seed … seed+runs-1); "
                                              "the best mapping over the runs is kept")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--seed", options.seed, "with a heuristic --search: seed of the first run")->capture_default_str();
  command->add_option("--warm-start", options.warm_start,
                      "with a heuristic --search: start from the best mappings of the previous or the most similar "
                      "layer already mapped")
      ->check(CLI::IsMember({"none", "previous", "similar"}))
      ->capture_default_str();
  command->add_option("--model", options.model, "with --search surrogate: the model file (`maeri surrogate train`)");
}

}  // namespace maeri::cli
