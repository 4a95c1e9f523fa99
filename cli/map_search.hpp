// `maeri map --search random|sa|ga|surrogate`: the options of the heuristic searches (mapper/search/heuristic_mapper.hpp),
// R runs per layer within a budget of model evaluations each, optionally warm-started from the layers mapped before
// (docs/search.md). The exhaustive search stays the default.
#pragma once

#include <CLI/CLI.hpp>

#include "mapper/search/heuristic_mapper.hpp"

namespace maeri::cli {

void add_map_search_options(CLI::App* command, mapper::HeuristicMapping& options);

}  // namespace maeri::cli
