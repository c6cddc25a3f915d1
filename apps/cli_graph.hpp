#pragma once
// The one way the command-line programs (bfs_spmv, bfs_bench, algebra_bench) get their graph: a
// generator spec (kron:S:E, urand:S:K, grid:W:H, randout:N:D, rmat, powerlaw, web, road: see
// gbcuda/generators.hpp) generated on the backend, a .gbc
// file with the vertex ordering it was saved in, or any other file through read_matrix.
#include <string>
#include <utility>

#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/reorder.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda_cli {

struct LoadedGraph {
  gbcuda::Matrix<bool> matrix;
  // matrix ids -> the file's: a .gbc file saved with an ordering; empty (size 0) when the matrix
  // is in the file's own ids and no ordering was saved.
  gbcuda::Relabelling relabelling;
  bool generated = false;
};

// `options` applies to files (format, index base, report, warnings); a .gbc file is one when
// options.format says so, or, with Auto, when its content does. options.report (when set) names
// the format read, also for a .gbc file.
inline LoadedGraph load_graph(const std::string& name, gbcuda::Backend backend,
                              const gbcuda::ReadOptions& options = {}) {
  LoadedGraph g;
  g.generated = gbcuda::is_graph_spec(name);
  if (g.generated) {
    g.matrix = gbcuda::generate_graph(gbcuda::parse_graph_spec(name), backend);
    return g;
  }
  const bool gbc = options.format == gbcuda::FileFormat::Binary ||
                   (options.format == gbcuda::FileFormat::Auto && gbcuda::is_binary_graph_file(name));
  if (!gbc) {
    g.matrix = gbcuda::read_matrix<bool>(name, options);
    return g;
  }
  gbcuda::RelabelledGraph<bool> rg = gbcuda::read_relabelled_graph<bool>(name);
  g.matrix = std::move(rg.matrix);
  if (rg.relabelling.ordering() != gbcuda::Ordering::None || !rg.relabelling.is_identity())
    g.relabelling = std::move(rg.relabelling);
  if (options.report) {
    options.report->format = gbcuda::FileFormat::Binary;
    options.report->header = g.relabelling.ordering() == gbcuda::Ordering::None
                                 ? std::string("gbc")
                                 : "gbc, relabelled (" + std::string(gbcuda::to_string(g.relabelling.ordering())) + ")";
  }
  return g;
}

}  // namespace gbcuda_cli
