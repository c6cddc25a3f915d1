#pragma once
// The one way the command-line programs (bfs_spmv, bfs_bench, algebra_bench) get their graph: a
// generator spec (kron:S:E, urand:S:K, grid:W:H, randout:N:D, rmat, powerlaw, web, road: see
// gbcuda/generators.hpp) generated on the backend, a .gbc
// file with the vertex ordering it was saved in, or any other file through read_matrix.
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/reorder.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda_cli {

// The reader flags of the command-line programs: how a graph FILE is read (generated graphs
// ignore them). One declaration, so that every program documents and checks them alike.
struct ReaderFlags {
  std::string format = "auto";
  int index_base = 0;
  std::string header = "auto";  // edge lists: is a first line "N M" a header (ReadOptions::HeaderLine)
  bool given() const { return format != "auto" || index_base != 0 || header != "auto"; }
};

inline void add_reader_flags(CLI::App& app, ReaderFlags& f) {
  app.add_option("--format", f.format, "Input format (default auto: detected from the content and the name)")
      ->type_name("auto|mtx|headerless|rodinia|edgelist|gbc|metis|dimacs")
      ->check(CLI::IsMember({"auto", "mtx", "headerless", "rodinia", "edgelist", "gbc", "metis", "dimacs"})
                  .description(""));
  app.add_option("--index-base", f.index_base,
                 "Edge lists: the first vertex id, 0 or 1 (default 0; with 1, an id 0 is an error)")
      ->type_name("0|1")
      ->check(CLI::IsMember({0, 1}).description(""));
  app.add_option("--header", f.header,
                 "Edge lists: whether a first line \"N M\" (two integers) is a header line, N vertices and M\n"
                 "edges, or an edge: yes, no, or auto: a header when exactly M edge lines follow and their ids\n"
                 "fit in N, with a warning (default auto)")
      ->type_name("auto|yes|no")
      ->check(CLI::IsMember({"auto", "yes", "no"}).description(""));
}

// The ReadOptions the flags ask for (format, index base, header line); the caller adds its
// report, warnings and the like.
inline gbcuda::ReadOptions reader_options(const ReaderFlags& f) {
  gbcuda::ReadOptions r;
  r.format = gbcuda::parse_format(f.format);
  r.index_base = f.index_base;
  r.edge_list_header = f.header == "yes"  ? gbcuda::ReadOptions::HeaderLine::Yes
                       : f.header == "no" ? gbcuda::ReadOptions::HeaderLine::No
                                          : gbcuda::ReadOptions::HeaderLine::Auto;
  return r;
}

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
