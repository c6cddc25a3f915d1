// bfs_spmv: breadth-first search over a sparse matrix read from a file, on the GPU or the host.
// Parses flags, loads the graph, calls gbcuda::bfs, and reports levels, time and GTEPS.
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "cli_graph.hpp"
#include "cli_kernels.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/multi_source.hpp"
#include "gbcuda/partitioned.hpp"
#include "gbcuda/reorder.hpp"
#include "gbcuda/types.hpp"

namespace {

using gbcuda_cli::kEdgesCountedAs;
using gbcuda_cli::kExitFailure;
using gbcuda_cli::kExitOk;
using gbcuda_cli::kExitUsage;
using gbcuda_cli::median;
using gbcuda_cli::UsageError;

struct Options {
  std::string file;
  std::string source;
  bool source_given = false;
  std::string device = "auto";
  std::string direction = "auto";
  std::string kernel = "auto";
  gbcuda_cli::ReaderFlags read;
  bool transpose = false;
  bool symmetrize = false;
  std::string levels_file;
  std::string parents_file;
  std::string save_file;
  std::string reorder;  // empty: the file's saved ordering, else none
  int repeat = 1;
  bool validate = false;
  bool json = false;
  bool verbose = false;
  bool no_barrier_free_tail = false;
  int multi_source = 0;  // > 0: that many random sources in one bfs_multi_source
  int partitions = 0;    // > 0: bfs_partitioned with this many parts
  std::string transport = "loopback";
  std::vector<int> gpus;
};

const char* direction_name(gbcuda::Direction d) {
  switch (d) {
    case gbcuda::Direction::Auto: return "auto";
    case gbcuda::Direction::Push: return "push";
    case gbcuda::Direction::Pull: return "pull";
  }
  return "?";
}

gbcuda::Direction parse_direction(const std::string& name) {
  if (name == "auto") return gbcuda::Direction::Auto;
  if (name == "push") return gbcuda::Direction::Push;
  if (name == "pull") return gbcuda::Direction::Pull;
  throw UsageError{fmt::format("unknown direction '{}' (expected auto, push or pull)", name)};
}

// What --source asks for: a vertex, or how to pick one once the graph is loaded.
struct SourceChoice {
  enum class Kind { Default, Vertex, MaxDegree, Random } kind = Kind::Default;
  gbcuda::Index vertex = 0;  // Kind::Vertex
  std::uint64_t seed = 1;    // Kind::Random: random:SEED, else this fixed default (bfs_bench's --seed default)
};

constexpr const char* kSourceForms = "a vertex number N (0-based), max-degree, random or random:SEED";

// Parses the whole of `text` as a non-negative decimal number of type N; false when it is not one.
template <class N>
bool parse_decimal(std::string_view text, N& value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// --source's value: N, max-degree, random or random:SEED; anything else (empty too) is a usage error.
SourceChoice parse_source(const std::string& text) {
  SourceChoice c;
  constexpr std::string_view random_seed = "random:";
  if (text == "max-degree") {
    c.kind = SourceChoice::Kind::MaxDegree;
  } else if (text == "random") {
    c.kind = SourceChoice::Kind::Random;
  } else if (text.starts_with(random_seed) &&
             parse_decimal(std::string_view(text).substr(random_seed.size()), c.seed)) {
    c.kind = SourceChoice::Kind::Random;
  } else if (parse_decimal(text, c.vertex)) {
    c.kind = SourceChoice::Kind::Vertex;
  } else {
    throw UsageError{fmt::format("--source '{}' is not {}", text, kSourceForms)};
  }
  return c;
}

// The source vertex --source asks for in a graph with these out-degrees (by the user's vertex
// ids), and how it was chosen: "given" (N), "max-degree", "random", or without --source
// "rodinia" (the source a Rodinia file names) or "default" (0).
std::pair<gbcuda::Index, std::string> choose_source(const SourceChoice& c, const std::vector<gbcuda::Index>& degree,
                                                    gbcuda::Index rodinia_source) {
  const auto n = static_cast<gbcuda::Index>(degree.size());
  switch (c.kind) {
    case SourceChoice::Kind::Default:
      if (rodinia_source >= 0 && rodinia_source < n) return {rodinia_source, "rodinia"};
      if (rodinia_source >= 0) break;  // out of range: reported below
      return {0, "default"};
    case SourceChoice::Kind::Vertex:
      if (c.vertex < n) return {c.vertex, "given"};
      break;
    case SourceChoice::Kind::MaxDegree: return {gbcuda_cli::max_out_degree_vertex(degree), "max-degree"};
    case SourceChoice::Kind::Random: {
      const std::vector<gbcuda::Index> v = gbcuda_cli::random_sources(degree, 1, c.seed);
      if (v.empty()) throw UsageError{"--source random: no vertex of the graph has an out-edge"};
      return {v.front(), "random"};
    }
  }
  const gbcuda::Index bad = c.kind == SourceChoice::Kind::Vertex ? c.vertex : rodinia_source;
  throw UsageError{fmt::format("source {} is out of range: the graph has {} vertices (0..{})", bad, n, n - 1)};
}

// The matrix to use when no FILE is given: the copy in the source tree, else an installed one.
std::string bundled_matrix() {
  namespace fs = std::filesystem;
  const fs::path in_tree = GBCUDA_BUNDLED_MATRIX;
  std::error_code ec;
  if (fs::is_regular_file(in_tree, ec)) return in_tree.string();
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path installed;
  if (!ec) {
    installed = exe.parent_path() / ".." / "share" / "gbcuda" / "matrices" / "delaunay_n10.mtx";
    if (fs::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  std::string msg = fmt::format("no FILE given and the bundled matrix is missing (looked for {}", in_tree.string());
  if (!installed.empty()) msg += fmt::format(" and {}", installed.lexically_normal().string());
  throw UsageError{msg + "); pass a matrix file"};
}

// `--kernel algebra`: the search written with public calls (vxm, nvals, assign per level), the
// product's policy choosing each level's kernel; every other name is a kernel of the fused loop.
constexpr const char* kAlgebra = "algebra";
constexpr const char* kAlgebraDescription =
    "the BFS written with public calls (vxm, nvals, assign per level); kernels chosen by the product";

// `--kernel list`: every kernel the library offers, one line each.
void print_kernel_list() {
  std::size_t width = std::string(kAlgebra).size();
  for (const gbcuda_cli::BfsKernelInfo& k : gbcuda_cli::bfs_kernels())
    width = std::max(width, std::string(k.name).size());
  for (const gbcuda_cli::BfsKernelInfo& k : gbcuda_cli::bfs_kernels())
    fmt::print("{:<{}}  {:<6}  {}\n", k.name, width, k.cuda_only ? "(CUDA)" : "", k.description);
  fmt::print("{:<{}}  {:<6}  {}\n", kAlgebra, width, "", kAlgebraDescription);
}

// The kernel a level ran, for --verbose: the host backend has one push and one pull.
std::string level_kernel_name(const gbcuda::BfsResult& r, const gbcuda::BfsLevelStats& s) {
  if (r.backend == gbcuda::Backend::Host) return s.direction == gbcuda::Direction::Pull ? "host pull" : "host push";
  if (s.barrier_free) return "barrier-free tail";  // its first level carries the whole tail's time
  return gbcuda::to_string(s.kernel);
}

// Vertices per level, level 0 first.
std::vector<gbcuda::Index> level_sizes(const gbcuda::BfsResult& r) {
  std::vector<gbcuda::Index> sizes(static_cast<std::size_t>(std::max(r.num_levels, 0)), 0);
  for (std::int32_t l : r.level) {
    if (l < 0) continue;
    if (static_cast<std::size_t>(l) >= sizes.size()) sizes.resize(static_cast<std::size_t>(l) + 1, 0);
    ++sizes[static_cast<std::size_t>(l)];
  }
  return sizes;
}

// An output named by --levels, --parents or --save, checked before the graph is read.
struct Output {
  std::string option;  // "--levels", ...
  std::string path;    // as given
  bool to_stdout = false;
  gbcuda::OutputTarget target{};  // how the library writes it, unless to_stdout
  // The file that gets the bytes: the end of the symlinks for a file, else the path itself.
  const std::string& file() const {
    return target.kind == gbcuda::OutputTarget::Kind::WriteThrough ? path : target.file;
  }
};

struct Outputs {
  std::optional<Output> levels, parents, save;
  // True when a result column goes to stdout (--save never does): then the summary goes to stderr.
  bool to_stdout() const { return (levels && levels->to_stdout) || (parents && parents->to_stdout); }
};

// True when `path` names the pipe or file stdout writes to, as /dev/stdout does. Character
// devices (a terminal, /dev/null) are left out: a summary beside a result there harms no reader.
bool is_stdout_file(const std::string& path) {
  struct stat out {};
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && ::stat(path.c_str(), &st) == 0 && out.st_dev == st.st_dev &&
         out.st_ino == st.st_ino && !S_ISCHR(st.st_mode);
}

// True when `a` and `b` are one file: the same file where both exist, the same full name where
// neither does yet.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool a_exists = fs::exists(a, ec), b_exists = fs::exists(b, ec);
  if (a_exists && b_exists) return fs::equivalent(a, b, ec);
  if (a_exists || b_exists) return false;
  return fs::weakly_canonical(fs::absolute(a, ec), ec) == fs::weakly_canonical(fs::absolute(b, ec), ec);
}

// Checks every output before the graph is read; a problem is a usage error (exit 2). Each must be
// writable (gbcuda::check_output_path: nothing is opened or created, a FIFO is not waited for);
// '-' (or stdout's own file) only for --levels and --parents, one of them at most; no two outputs
// one file (a character device such as /dev/null excepted), none the input file `input` (empty
// for a generated graph).
Outputs check_outputs(const Options& o, const std::string& input) {
  Outputs outs;
  std::vector<const Output*> seen;
  auto add = [&](std::optional<Output>& slot, const char* option, const std::string& path) {
    if (path.empty()) return;
    Output out{option, path};
    out.to_stdout = path == "-" || is_stdout_file(path);
    if (out.to_stdout && &slot == &outs.save)
      throw UsageError{fmt::format(
          "--save {}: the .gbc file is binary and is read back by name; give --save a file, not stdout", path)};
    if (!out.to_stdout) {
      try {
        out.target = gbcuda::check_output_path(path);
      } catch (const gbcuda::Error& e) {
        throw UsageError{fmt::format("{}: {}", option, e.what())};
      }
      if (!input.empty() && same_file(out.file(), input))
        throw UsageError{fmt::format("{} {} is the input file; it would be overwritten", option, path)};
    }
    for (const Output* prev : seen) {
      if (prev->to_stdout && out.to_stdout)
        throw UsageError{fmt::format("{} {} and {} {} both write to stdout; give one of them a file", prev->option,
                                     prev->path, option, path)};
      std::error_code ec;
      if (!prev->to_stdout && !out.to_stdout && same_file(prev->file(), out.file()) &&
          !std::filesystem::is_character_file(out.file(), ec))
        throw UsageError{fmt::format("{} {} and {} {} name the same file", prev->option, prev->path, option, path)};
    }
    seen.push_back(&slot.emplace(std::move(out)));
  };
  add(outs.levels, "--levels", o.levels_file);
  add(outs.parents, "--parents", o.parents_file);
  add(outs.save, "--save", o.save_file);
  return outs;
}

// Writes one value per line to an output: stdout, or a file through write_file_atomically.
template <class V>
void write_column(const Output& out, const std::vector<V>& values) {
  auto fill = [&](std::ostream& os) {
    std::string buf;
    buf.reserve(1 << 16);
    for (const V& v : values) {
      buf += std::to_string(v);
      buf += '\n';
      if (buf.size() >= (1 << 16) - 32) {
        os << buf;
        buf.clear();
      }
    }
    os << buf;
  };
  if (!out.to_stdout) {
    gbcuda::write_file_atomically(out.path, fill);
    return;
  }
  fill(std::cout);
  std::cout.flush();
  if (!std::cout) throw gbcuda::Error(gbcuda::Status::IoError, fmt::format("{}: cannot write to stdout", out.option));
}

// True when `file` is a .gbc file read by name (--format gbc, or auto and the file starts with the
// .gbc magic): then it is read with its saved ordering. Pipes are left to the generic reader,
// which gives a relabelled file back in the original ids.
// What --reorder did: "none", "file" (the ordering a .gbc file held), "computed", or "restored"
// (a file's ordering undone for --reorder none); seconds for computed and restored, else -1.
struct Reordering {
  std::string from = "none";
  double seconds = -1;
  std::string describe(gbcuda::Ordering ordering) const {
    if (from == "file") return fmt::format("{} (saved in the file)", gbcuda::to_string(ordering));
    if (from == "computed")
      return fmt::format("{} (computed in {:.3f} s, not in the BFS time)", gbcuda::to_string(ordering), seconds);
    if (from == "restored") return fmt::format("none (the file's ordering undone in {:.3f} s)", seconds);
    return "none";
  }
};

// Applies --reorder to A and its relabelling (A's ids -> the user's): keeps a saved ordering that
// is asked for (or when none is asked), computes another one over A's ids, or undoes a saved one.
Reordering reorder(const Options& o, gbcuda::Matrix<bool>& A, gbcuda::Relabelling& relabelling) {
  Reordering r;
  const gbcuda::Ordering saved = relabelling.ordering();
  const bool identity = relabelling.is_identity();
  const gbcuda::Ordering want = o.reorder.empty() ? saved : gbcuda::parse_ordering(o.reorder);
  if (want == gbcuda::Ordering::None ? identity : want == saved) {
    r.from = identity ? "none" : "file";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (want == gbcuda::Ordering::None) {
    if (o.verbose) fmt::print(stderr, "bfs_spmv: undoing the file's {} ordering\n", gbcuda::to_string(saved));
    A = gbcuda::relabel(A, relabelling.inverse());
    relabelling = gbcuda::Relabelling::identity(A.nrows());
    r.from = "restored";
  } else {
    if (o.verbose) fmt::print(stderr, "bfs_spmv: relabelling the vertices ({})\n", gbcuda::to_string(want));
    const gbcuda::Relabelling next = gbcuda::compute_ordering(A, want);
    A = gbcuda::relabel(A, next);
    relabelling = relabelling.then(next);
    r.from = "computed";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void build_cli(CLI::App& app, Options& o) {
  app.description(
      "Breadth-first search over a sparse matrix: every stored entry A(i,j) is an edge i -> j (row -> column),\n"
      "values are ignored. Runs one untimed warm-up BFS, then --repeat timed ones, and reports the median.");
  app.add_option("FILE", o.file,
                 "Graph file, or a generator spec such as kron:16:16 or grid:100:100 (see below; default: the\n"
                 "bundled matrix delaunay_n10.mtx, 1024 vertices)")
      ->type_name("");
  app.add_option("--source", o.source,
                 "Source vertex: N (0-based), max-degree (the most out-edges, lowest id on ties), or random[:SEED]\n"
                 "(a uniformly random vertex with an out-edge; SEED default 1, the same vertex every run)\n"
                 "(default 0; for a Rodinia file, the source it names)")
      ->type_name("N|max-degree|random[:SEED]");
  app.add_option("--device", o.device,
                 "Where the BFS runs: cuda (the GPU), host (OpenMP), or auto: the GPU when usable (default auto)")
      ->type_name("auto|cuda|host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}).description(""));
  app.add_option("--direction", o.direction,
                 "push (top-down), pull (bottom-up), or auto: chosen per level from the frontier (default auto)")
      ->type_name("auto|push|pull")
      ->check(CLI::IsMember({"auto", "push", "pull"}).description(""));
  app.add_option("--kernel", o.kernel,
                 "Kernel of each level's masked product: auto (chosen per level), or one forced for every\n"
                 "level, on the GPU in one fused kernel; 'algebra' runs the BFS written with public calls\n"
                 "(vxm, nvals, assign per level); '--kernel list' prints the names (default auto)")
      ->type_name("NAME|algebra|list");
  gbcuda_cli::add_reader_flags(app, o.read);
  auto* transpose = app.add_flag("--transpose", o.transpose, "Search the transpose: edges j -> i");
  auto* symmetrize = app.add_flag("--symmetrize", o.symmetrize, "Search A + A' (every edge in both directions)");
  transpose->excludes(symmetrize);
  // An output named '' would otherwise read as no output at all.
  const CLI::Validator file_name(
      [](const std::string& s) { return s.empty() ? std::string("an empty file name") : std::string(); }, "");
  app.add_option("--levels", o.levels_file,
                 "Write each vertex's level to FILE ('-': stdout), one line per vertex in vertex order\n"
                 "(-1: unreachable)")
      ->type_name("FILE|-")
      ->check(file_name);
  app.add_option("--parents", o.parents_file,
                 "Write each vertex's BFS parent to FILE ('-': stdout), one per line (source: itself,\n"
                 "-1: unreachable)")
      ->type_name("FILE|-")
      ->check(file_name);
  app.add_option("--save", o.save_file,
                 "Write the graph searched (after --transpose/--symmetrize) to FILE in the binary .gbc format\n"
                 "before the BFS; reading FILE later skips parsing or generating (not stdout: '-' is refused)")
      ->type_name("FILE.gbc")
      ->check(file_name);
  app.add_option("--reorder", o.reorder,
                 "Relabel the vertices for locality before the search: degree (highest degree first), rcm\n"
                 "(reverse Cuthill-McKee) or none; its cost is reported apart from the BFS time, and every\n"
                 "vertex id in and out (--source, --levels, --parents) stays the file's. --save keeps the\n"
                 "ordering in the .gbc file, which a later run uses without paying again (default: the\n"
                 "ordering saved in a .gbc file, else none)")
      ->type_name("none|degree|rcm")
      ->check(CLI::IsMember({"none", "degree", "rcm"}).description(""));
  app.add_option("--repeat", o.repeat, "Timed BFS runs (1 to 1000000) after one warm-up; median reported (default 1)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000).description(""));
  app.add_flag("--validate", o.validate,
               "Check the levels and parents against the graph (Graph500 rules); exit 1 if invalid");
  app.add_flag("--no-barrier-free-tail", o.no_barrier_free_tail,
               "Keep every level level-synchronous (by default the fused loop finishes a search that ran 64\n"
               "narrow levels in a row without level barriers)");
  app.add_option("--multi-source", o.multi_source,
                 "Search from K random vertices with out-edges at once (gbcuda::bfs_multi_source: 64 searches a\n"
                 "pass, a bit each in every vertex's word); --source random:SEED sets the seed. Reports the time\n"
                 "for all K; with --validate each search is checked against its own BFS, whose summed time is\n"
                 "reported beside. No --levels, --parents, --kernel, --direction or --partitions")
      ->type_name("K")
      ->check(CLI::Range(1, 1 << 20).description(""));
  gbcuda_cli::add_partition_flags(
      app, o.partitions, o.transport, o.gpus,
      "Split the graph into P parts (1D, by destination) searched by P threads that exchange the\n"
      "frontier each level (docs/design/partitioned.md); no --kernel or --direction. With\n"
      "--transport loopback (default) every part runs on --device; with --transport nccl part p\n"
      "runs on GPU p (or the p-th of --gpus)");
  app.add_flag("--json", o.json, "Print one JSON object on stdout instead of the text summary");
  app.add_flag("--verbose", o.verbose,
               "Progress and one line per BFS level (frontier, edges, direction, kernel, time) on stderr");
  app.set_version_flag("--version", fmt::format("bfs_spmv (gbcuda {}; CUDA backend: {})", GBCUDA_VERSION_STRING,
                                                GBCUDA_HAVE_CUDA ? "yes" : "no, built with GBCUDA_CUDA=OFF"));
  app.footer(
      "Formats (--format):\n"
      "  mtx         Matrix Market (%%MatrixMarket matrix coordinate|array ...); symmetric, skew-symmetric\n"
      "              and hermitian files are expanded to both directions; 1-based indices\n"
      "  headerless  first line \"rows cols nnz\", then 1-based \"i j [value]\" lines\n"
      "  rodinia     Rodinia BFS text: n, n lines \"start degree\", source, m, m lines \"dest cost\"; 0-based\n"
      "  edgelist    \"src dst [weight]\" per line, 0-based (--index-base 1: 1-based); '#' or '%' comments;\n"
      "              spaces, tabs or commas; a CSV header line and networkx's \"u v {'weight': w}\" are read.\n"
      "              A first line \"N M\" is a header (N x N, M edges checked; a warning says so) when\n"
      "              exactly M edge lines follow and their ids fit in N; a near miss is read as an edge\n"
      "              with a warning, a 1-based file's header under --index-base 0 is refused; --header\n"
      "              yes|no decides. SNAP's comment \"# Nodes: N Edges: M\" sizes the matrix N x N (or\n"
      "              by the largest id, with a warning, when ids reach N) and M is checked (a warning)\n"
      "  metis       METIS adjacency: \"n m [fmt [ncon]]\", then one line per vertex listing its 1-based\n"
      "              neighbours (an empty line: none); '%' comments\n"
      "  dimacs      DIMACS/PACE graphs: 'c' comments, a problem line \"p KIND n m\", then m 1-based lines:\n"
      "              \"p sp\" (shortest paths, *.gr) arcs \"a u v w\"; \"p tw\" (PACE, *.gr) edges \"u v\";\n"
      "              \"p edge\" (coloring) edges \"e u v\"; edges are stored in both directions\n"
      "  gbc         gbcuda's binary CSR file (as written by --save, with its --reorder ordering); loads\n"
      "              at disk speed\n"
      "  auto        detect from the content (and the name: *.rodinia.txt, *.graph, *.metis, *.gbc, *.gr);\n"
      "              what is not quite a format is read with a warning, what fits two formats is refused\n"
      "FILE may be a pipe (/dev/stdin, <(...), a FIFO): it is read once, like a file. FILE may be\n"
      "compressed (gzip, xz, bzip2: told by its first bytes, so a compressed pipe works too); the name\n"
      "rules then look at the name without .gz, .xz or .bz2, and a name promising another compression\n"
      "than the content has, or corrupt or truncated data, is an error.\n"
      "\n"
      "Generated graphs (given instead of FILE; --format does not apply):\n"
      "  kron:S:E     Graph500 Kronecker, 2^S vertices, E*2^S edges drawn, symmetrized\n"
      "  urand:S:K    2^S vertices, K*2^S uniformly random edges, symmetrized\n"
      "  grid:W:H     W x H 2-D grid, 4 neighbours, both directions; vertex (x, y) is y*W + x\n"
      "  randout:N:D  N vertices, each with D distinct random out-edges (directed)\n"
      "  rmat:S:E[:A:B:C]  R-MAT, 2^S vertices, E*2^S edges, directed; default A:B:C = .55:.10:.30\n"
      "               (in-degrees more skewed than out-degrees)\n"
      "  powerlaw:N:D[:K]  N vertices, D*N edges from uniform sources to Zipf-ranked targets (K = 1..8,\n"
      "               default 3), directed: power-law in-degrees\n"
      "  web:N        a web crawl's shape, symmetric: hubs with thousands of low-degree neighbours,\n"
      "               comb-shaped tails; about 28 levels from the highest-degree vertex (web:325000)\n"
      "  road:W:H     a road map's shape, symmetric: a thinned W x H lattice, mean degree 2.5, depth ~W+H\n"
      "  Numbers may use an exponent (kron:20:16, randout:1e6:8). A file named like a spec: ./kron:1:2\n"
      "\n"
      "Kernels (--kernel; '--kernel list' describes each): auto, pull and algebra run on either device;\n"
      "the others (CUDA) need --device cuda or auto with a GPU. On the GPU every kernel but algebra runs\n"
      "the whole search in one fused kernel; algebra runs one masked product (vxm) per level.\n"
      "\n"
      "Output: a text summary on stdout (vertices, stored entries, source and how it was chosen, vertices\n"
      "reached, levels, device, time per BFS, GTEPS), or one JSON object with --json. Progress, warnings\n"
      "and errors go to stderr. When --levels or --parents is '-' (or names the pipe or file stdout\n"
      "writes to, as /dev/stdout does), stdout holds that column only and the summary or JSON goes to\n"
      "stderr; only one of them may go to stdout.\n"
      "GTEPS = edges traversed / median time, where " +
      std::string(kEdgesCountedAs) +
      ".\n"
      "\n"
      "Output files (--levels, --parents, --save) are checked before the graph is read, creating nothing:\n"
      "the directory must exist and be writable, and no output may be a directory, the input file or\n"
      "another output's file (a character device such as /dev/null excepted); else exit 2. A regular\n"
      "file, a new one or one a symlink leads to is written whole or not at all (a temporary beside it,\n"
      "renamed over it; symlinks stay symlinks). A FIFO or a character device (/dev/null, a terminal,\n"
      "/dev/stdout) is written in place, never replaced; a FIFO waits for its reader. --levels and\n"
      "--parents are written only when the run succeeds (after --validate). For a file named '-', give ./-\n"
      "\n"
      "Exit codes: 0 success; 2 usage or input error (bad option, unreadable or malformed file, empty or\n"
      "non-square matrix, a bad or out-of-range --source, --device cuda without a usable GPU, unknown\n"
      "--kernel, a CUDA kernel on the host, an output that cannot be written); 1 anything else (validation\n"
      "failure, out of memory, internal error).\n"
      "\n"
      "Examples:\n"
      "  bfs_spmv                                   # the bundled matrix, source 0\n"
      "  bfs_spmv graph.mtx --source 5 --repeat 10  # median of 10 timed runs\n"
      "  bfs_spmv graph.mtx --device host --validate --levels levels.txt --parents parents.txt\n"
      "  bfs_spmv graph.txt --format edgelist --symmetrize --json\n"
      "  bfs_spmv graph.mtx --levels - | sort -n | uniq -c  # levels on stdout, the summary on stderr\n"
      "  bfs_spmv kron:20:16 --source max-degree --save kron20.gbc\n"
      "                                             # generate, keep a binary copy, search from the hub\n"
      "  bfs_spmv kron:22:16 --reorder degree --save kron22-degree.gbc\n"
      "                                             # relabel once, keep it; later runs read the file\n"
      "  bfs_spmv matrices/bcsstk13.mtx --kernel queue-warp --verbose");
}

// The graph searched: loaded or generated, transposed or symmetrized, reordered, and saved
// when --save asks.
struct Graph {
  std::string file;
  bool generated = false;
  gbcuda::ReadReport read_report;  // the format read, for --verbose and --json
  gbcuda::Index rodinia_source = -1;
  gbcuda::Matrix<bool> A;
  gbcuda::Relabelling relabelling;  // A's ids -> the file's (identity unless ordered)
  Reordering reordering;
  std::size_t bytes = 0;                    // A's arrays (row offsets, columns) where it lives
  double build_seconds = 0;                 // loading or generating, transposing, symmetrizing
  std::size_t build_peak_device_bytes = 0;  // the most the GPU held meanwhile (0 on the host)
};

Graph load(const Options& o, const std::string& file, bool file_given, gbcuda::Backend backend, const Outputs& outs) {
  Graph g;
  g.file = file;
  g.generated = file_given && gbcuda::is_graph_spec(file);
  gbcuda::ReadOptions ropt;
  if (g.generated) {
    if (o.read.format != "auto")
      throw UsageError{fmt::format("--format {} does not apply to the generated graph {}", o.read.format, file)};
    if (o.read.index_base != 0)
      throw UsageError{fmt::format("--index-base does not apply to the generated graph {}", file)};
    if (o.read.header != "auto")
      throw UsageError{fmt::format("--header does not apply to the generated graph {}", file)};
    if (o.verbose)
      fmt::print(stderr, "bfs_spmv: generating {} on {}\n", gbcuda::parse_graph_spec(file).text(),
                 gbcuda::to_string(backend));
  } else {
    ropt = gbcuda_cli::reader_options(o.read);
    ropt.rodinia_source = &g.rodinia_source;
    ropt.report = &g.read_report;
    ropt.on_warning = [](const std::string& w) { fmt::print(stderr, "bfs_spmv: warning: {}\n", w); };
    if (o.verbose) fmt::print(stderr, "bfs_spmv: reading {}\n", file);
  }
  const auto t_build = std::chrono::steady_clock::now();
  if (backend == gbcuda::Backend::Cuda) gbcuda::reset_device_memory_peak();
  gbcuda_cli::LoadedGraph loaded = gbcuda_cli::load_graph(file, backend, ropt);
  gbcuda::Matrix<bool>& A = g.A;
  A = std::move(loaded.matrix);
  g.relabelling = std::move(loaded.relabelling);  // kept in the file's saved ordering, if any
  if (!g.generated && o.verbose)
    fmt::print(stderr, "bfs_spmv: format: {} ({})\n", gbcuda::to_string(g.read_report.format), g.read_report.header);
  if (o.transpose) {
    const gbcuda::Matrix<bool> At = A.transpose();  // shares the cached transpose's storage
    A = At;
  }
  if (o.symmetrize) A = A.symmetrized();
  g.bytes = A.csr(backend).bytes();  // on the GPU this places the graph there, if it is not yet
  gbcuda::wait_for_device();         // the GPU's generator returns before it is done
  g.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_build).count();
  if (backend == gbcuda::Backend::Cuda) g.build_peak_device_bytes = gbcuda::device_memory_info().peak_used_bytes;
  if (o.verbose)
    fmt::print(stderr, "bfs_spmv: graph built in {:.3f} s: {:.1f} MiB, {:.2f} bytes per stored entry{}\n",
               g.build_seconds, double(g.bytes) / (1 << 20), A.nvals() > 0 ? double(g.bytes) / double(A.nvals()) : 0.0,
               backend == gbcuda::Backend::Cuda
                   ? fmt::format(", GPU peak {:.1f} MiB", double(g.build_peak_device_bytes) / (1 << 20))
                   : std::string());

  const gbcuda::Index n = A.nrows();
  if (A.nrows() != A.ncols())
    throw UsageError{
        fmt::format("the matrix is {} x {}; BFS needs a square matrix (vertices x vertices)", A.nrows(), A.ncols())};
  if (n == 0) throw UsageError{fmt::format("the matrix in {} is empty (0 x 0): no vertices to search", file)};
  if (o.verbose) fmt::print(stderr, "bfs_spmv: {} vertices, {} stored entries\n", n, A.nvals());
  if (g.relabelling.size() != n) g.relabelling = gbcuda::Relabelling::identity(n);
  // The orderings look at A + A', so a saved one holds for --transpose and --symmetrize too.
  g.reordering = reorder(o, A, g.relabelling);
  if (outs.save) {
    if (g.relabelling.is_identity()) gbcuda::write_binary_graph(outs.save->path, A);
    else gbcuda::write_binary_graph(outs.save->path, gbcuda::RelabelledGraph<bool>{A, g.relabelling});
    if (o.verbose) fmt::print(stderr, "bfs_spmv: saved the graph to {}\n", outs.save->path);
  }
  return g;
}

// What the timed searches found, in the file's ids.
struct Search {
  gbcuda::Index source = 0;  // the file's id
  std::string source_how;
  gbcuda::BfsOptions options;
  gbcuda::BfsResult result;
  double t_median = 0, t_min = 0, gteps = 0;
  bool have_gteps = false;  // GTEPS needs a measurable time: a zero median reports none
  bool validated = false;
};

// The warm-up and the timed searches from the chosen source, then --validate; nullopt when the
// answer is invalid (said on stderr).
std::optional<Search> search(const Options& o, const Graph& g, const SourceChoice& source_choice,
                             gbcuda::Backend backend, gbcuda::Direction direction, gbcuda::BfsKernel kernel,
                             bool algebra, bool parents, const std::string& device_desc) {
  Search s;
  const gbcuda::Matrix<bool>& A = g.A;
  // Sources are chosen among the user's ids (the same vertex whatever the ordering).
  const bool relabelled = !g.relabelling.is_identity();
  const std::vector<gbcuda::Index> degree =
      relabelled ? g.relabelling.to_original_order(A.out_degrees()) : A.out_degrees();
  std::tie(s.source, s.source_how) = choose_source(source_choice, degree, g.rodinia_source);
  if (degree[s.source] == 0)
    fmt::print(stderr, "bfs_spmv: warning: source {} has no out-edges; the search reaches only {}\n", s.source,
               s.source);
  const gbcuda::Index searched_source = g.relabelling.new_id(s.source);

  gbcuda::BfsOptions& bopt = s.options;
  bopt.device = backend == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  bopt.direction = direction;
  bopt.kernel = kernel;
  bopt.level_loop = algebra ? gbcuda::LevelLoop::Algebra : gbcuda::LevelLoop::Fused;
  bopt.compute_parents = parents;
  bopt.collect_stats = o.verbose;  // per-level stats cost a sync per level; only when shown
  bopt.barrier_free_tail = !o.no_barrier_free_tail;

  gbcuda::PartitionedBfsOptions popt;
  popt.parts = o.partitions;
  popt.transport = gbcuda::parse_transport(o.transport);
  popt.device = bopt.device;
  popt.gpus = o.gpus;
  popt.compute_parents = parents;
  std::optional<gbcuda::PartitionedGraph> parts;  // built once, searched --repeat times
  if (o.partitions > 0) {
    if (o.verbose) fmt::print(stderr, "bfs_spmv: building {} parts ({} transport)\n", o.partitions, o.transport);
    const auto t0 = std::chrono::steady_clock::now();
    parts.emplace(A, popt);
    if (o.verbose)
      fmt::print(stderr, "bfs_spmv: built {} parts in {:.2f} s ({})\n", o.partitions,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                 parts->built_on_gpus() ? "cut on their GPUs" : "cut on the host");
  }
  auto one_search = [&] { return parts ? parts->bfs(searched_source, popt) : gbcuda::bfs(A, searched_source, bopt); };
  if (o.verbose) fmt::print(stderr, "bfs_spmv: warm-up BFS on {}\n", device_desc);
  gbcuda::BfsResult& result = s.result;
  result = one_search();
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(o.repeat));
  for (int i = 0; i < o.repeat; ++i) {
    result = one_search();
    times.push_back(result.seconds);
  }
  s.t_median = median(times);
  s.t_min = *std::min_element(times.begin(), times.end());
  s.have_gteps = s.t_median > 0;
  s.gteps = s.have_gteps ? static_cast<double>(result.edges_traversed) / s.t_median / 1e9 : 0.0;

  if (o.verbose) {
    if (kernel == gbcuda::BfsKernel::Auto && o.partitions == 0) {
      const gbcuda::detail::ProductPolicy p = gbcuda::product_policy(backend);
      fmt::print(stderr,
                 "bfs_spmv: policy alpha {:g}, beta {:g}, single block <= {}, block queues <= {} vertices or <= {} "
                 "edges: {}\n",
                 p.alpha, p.beta, p.single_block_max, p.block_queue_max, p.block_queue_max_edges,
                 gbcuda::product_policy_source(backend));
    }
    for (const gbcuda::BfsLevelStats& l : result.levels)
      fmt::print(stderr, "level {:>4}: frontier {:>10}, edges examined {:>12}, {}, {}, {:.6f} s\n", l.level,
                 l.frontier_size, l.edges_examined, direction_name(l.direction), level_kernel_name(result, l),
                 l.seconds);
  }
  if (o.validate) {
    if (o.verbose) fmt::print(stderr, "bfs_spmv: validating\n");
    std::string problem = gbcuda::validate_bfs(A, searched_source, result);
    if (!problem.empty() && relabelled) problem += " (in the relabelled ids)";
    if (!problem.empty()) {
      fmt::print(stderr, "bfs_spmv: error: validation failed: {}\n", problem);
      return std::nullopt;
    }
    s.validated = true;
  }
  if (relabelled) result = gbcuda::to_original_ids(std::move(result), g.relabelling);
  return s;
}

// The summary: one JSON object (--json) or the text lines, on `report`.
void report(std::FILE* report, const Options& o, bool file_given, const Graph& g, const Search& s,
            const SourceChoice& source_choice, gbcuda::Direction direction, gbcuda::BfsKernel kernel, bool algebra,
            const std::string& device_desc) {
  const gbcuda::BfsResult& result = s.result;
  const gbcuda::Index n = g.A.nrows();
  if (o.json) {
    nlohmann::json j;
    j["file"] = g.file;
    j["format"] = g.generated ? nlohmann::json(nullptr) : nlohmann::json(gbcuda::to_string(g.read_report.format));
    j["ordering"] = gbcuda::to_string(g.relabelling.ordering());
    j["ordering_from"] = g.reordering.from;
    j["ordering_seconds"] = g.reordering.seconds >= 0 ? nlohmann::json(g.reordering.seconds) : nlohmann::json(nullptr);
    j["transposed"] = o.transpose;
    j["symmetrized"] = o.symmetrize;
    j["vertices"] = n;
    j["entries"] = g.A.nvals();
    j["source"] = s.source;
    j["source_choice"] = s.source_how;
    j["source_seed"] =
        source_choice.kind == SourceChoice::Kind::Random ? nlohmann::json(source_choice.seed) : nlohmann::json(nullptr);
    j["reached"] = result.vertices_reached;
    j["levels"] = result.num_levels;
    j["device"] = device_desc;
    j["backend"] = gbcuda::to_string(result.backend);
    j["direction"] = direction_name(direction);
    j["kernel"] = algebra ? std::string(kAlgebra) : std::string(gbcuda::to_string(kernel));
    j["level_loop"] =
        o.partitions > 0 ? nlohmann::json("partitioned") : nlohmann::json(gbcuda::to_string(result.level_loop));
    j["partitions"] = o.partitions > 0 ? nlohmann::json(o.partitions) : nlohmann::json(nullptr);
    j["transport"] = o.partitions > 0 ? nlohmann::json(o.transport) : nlohmann::json(nullptr);
    j["barrier_free_tail"] = s.options.barrier_free_tail;
    j["barrier_free_from"] =
        result.barrier_free_from > 0 ? nlohmann::json(result.barrier_free_from) : nlohmann::json(nullptr);
    j["barrier_free_abandoned"] = result.barrier_free_abandoned;
    j["repeat"] = o.repeat;
    j["seconds_median"] = s.t_median;
    j["seconds_min"] = s.t_min;
    j["gteps"] = s.have_gteps ? nlohmann::json(s.gteps) : nlohmann::json(nullptr);
    j["edges_traversed"] = result.edges_traversed;
    j["edges_counted_as"] = kEdgesCountedAs;
    j["validated"] = o.validate ? nlohmann::json(s.validated) : nlohmann::json(nullptr);
    j["level_sizes"] = level_sizes(result);
    // Memory: the graph's arrays per stored entry, and the GPU's high-water marks (null on the host).
    const bool on_gpu = result.backend == gbcuda::Backend::Cuda;
    j["graph_bytes"] = g.bytes;
    j["graph_bytes_per_entry"] =
        g.A.nvals() > 0 ? nlohmann::json(double(g.bytes) / double(g.A.nvals())) : nlohmann::json(nullptr);
    j["build_seconds"] = g.build_seconds;
    j["build_peak_device_bytes"] = on_gpu ? nlohmann::json(g.build_peak_device_bytes) : nlohmann::json(nullptr);
    j["peak_device_bytes"] =
        on_gpu ? nlohmann::json(gbcuda::device_memory_info().peak_used_bytes) : nlohmann::json(nullptr);
    fmt::print(report, "{}\n", j.dump(2));
    return;
  }
  std::string how;
  if (o.transpose) how = " (transposed)";
  if (o.symmetrize) how = " (symmetrized)";
  fmt::print(report, "file:       {}{}\n", g.file, g.generated ? " (generated)" : file_given ? "" : " (bundled)");
  fmt::print(report, "graph:      {} vertices, {} stored entries (directed){}\n", n, g.A.nvals(), how);
  if (source_choice.kind == SourceChoice::Kind::Random)
    fmt::print(report, "source:     {} (random, seed {})\n", s.source, source_choice.seed);
  else fmt::print(report, "source:     {} ({})\n", s.source, s.source_how);
  fmt::print(report, "ordering:   {}\n", g.reordering.describe(g.relabelling.ordering()));
  fmt::print(report, "reached:    {} vertices in {} levels (level 0 = the source)\n", result.vertices_reached,
             result.num_levels);
  fmt::print(report, "device:     {} [{}]\n", device_desc, gbcuda::to_string(result.backend));
  fmt::print(report, "direction:  {}\n", direction_name(direction));
  if (o.partitions > 0)
    fmt::print(report, "partitions: {} ({} transport; the partitioned level loop)\n", o.partitions, o.transport);
  else
    fmt::print(report, "kernel:     {} ({} level loop{})\n", algebra ? kAlgebra : gbcuda::to_string(kernel),
               gbcuda::to_string(result.level_loop),
               result.barrier_free_from > 0    ? fmt::format("; barrier-free from level {}", result.barrier_free_from)
               : result.barrier_free_abandoned ? "; barrier-free tail abandoned, searched again"
                                               : "");
  fmt::print(report, "time:       {:.6f} s per BFS (median of {}, min {:.6f} s)\n", s.t_median, o.repeat, s.t_min);
  if (s.have_gteps)
    fmt::print(report, "GTEPS:      {:.4f} ({} edges / median time)\n", s.gteps, result.edges_traversed);
  else fmt::print(report, "GTEPS:      n/a (time below the timer's resolution; {} edges)\n", result.edges_traversed);
  fmt::print(report, "edges:      {}\n", kEdgesCountedAs);
  if (s.validated) fmt::print(report, "validated:  yes\n");
}

// --multi-source K: K random sources with out-edges (the seed of --source random:SEED) searched by
// one bfs_multi_source, --repeat times; with --validate each search's levels are checked against
// its own bfs() (the same device, kernel auto), whose times are reported beside.
int run_multi_source(const Options& o, const Graph& g, const SourceChoice& source_choice, gbcuda::Backend backend,
                     const std::string& device_desc) {
  const gbcuda::Matrix<bool>& A = g.A;
  const bool relabelled = !g.relabelling.is_identity();
  const std::vector<gbcuda::Index> degree =
      relabelled ? g.relabelling.to_original_order(A.out_degrees()) : A.out_degrees();
  const std::vector<gbcuda::Index> user_sources =
      gbcuda_cli::random_sources(degree, o.multi_source, source_choice.seed);
  if (user_sources.empty()) throw gbcuda::Error(gbcuda::Status::InvalidValue, "no vertex has an out-edge: no sources");
  std::vector<gbcuda::Index> sources;
  for (gbcuda::Index s : user_sources) sources.push_back(g.relabelling.new_id(s));
  gbcuda::MultiSourceBfsOptions mo;
  mo.device = backend == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  mo.keep_levels = o.validate;
  if (o.verbose)
    fmt::print(stderr, "bfs_spmv: warm-up multi-source BFS from {} sources on {}\n", sources.size(), device_desc);
  gbcuda::MultiSourceBfsResult r = gbcuda::bfs_multi_source(A, sources, mo);
  std::vector<double> times;
  for (int i = 0; i < o.repeat; ++i) {
    r = gbcuda::bfs_multi_source(A, sources, mo);
    times.push_back(r.seconds);
  }
  const double t_median = median(times), t_min = *std::min_element(times.begin(), times.end());
  std::optional<double> single;  // the same sources one bfs() each (with --validate)
  if (o.validate) {
    if (o.verbose) fmt::print(stderr, "bfs_spmv: validating: each source's own BFS\n");
    gbcuda::BfsOptions bopt;
    bopt.device = mo.device;
    bopt.collect_stats = false;
    (void)gbcuda::bfs(A, sources[0], bopt);  // warm-up
    double total = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const gbcuda::BfsResult one = gbcuda::bfs(A, sources[i], bopt);
      total += one.seconds;
      const auto* got = r.level.data() + i * std::size_t(A.nrows());
      if (!std::equal(one.level.begin(), one.level.end(), got)) {
        fmt::print(stderr, "bfs_spmv: error: validation failed: the search from {} differs from its own BFS\n",
                   user_sources[i]);
        return kExitFailure;
      }
    }
    single = total;
  }
  const double gteps = t_median > 0 ? double(r.edges_traversed) / t_median / 1e9 : 0.0;
  gbcuda::Index reached = 0;
  for (gbcuda::Index c : r.vertices_reached) reached += c;
  if (o.json) {
    nlohmann::json j;
    j["file"] = g.file;
    j["vertices"] = A.nrows();
    j["entries"] = A.nvals();
    j["multi_source"] = sources.size();
    j["sources"] = user_sources;
    j["source_seed"] = source_choice.seed;
    j["passes"] = r.passes;
    j["device"] = device_desc;
    j["backend"] = gbcuda::to_string(r.backend);
    j["repeat"] = o.repeat;
    j["seconds_median"] = t_median;
    j["seconds_min"] = t_min;
    j["seconds_per_search"] = t_median / double(sources.size());
    j["levels"] = r.num_levels;
    j["reached_mean"] = double(reached) / double(sources.size());
    j["edges_traversed"] = r.edges_traversed;
    j["edges_counted_as"] = std::string(kEdgesCountedAs) + ", summed over the searches";
    j["gteps"] = t_median > 0 ? nlohmann::json(gteps) : nlohmann::json(nullptr);
    j["validated"] = o.validate;
    j["single_seconds"] = single ? nlohmann::json(*single) : nlohmann::json(nullptr);
    j["speedup_over_single"] = single && t_median > 0 ? nlohmann::json(*single / t_median) : nlohmann::json(nullptr);
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  fmt::print("file:       {}{}\n", g.file, g.generated ? " (generated)" : "");
  fmt::print("graph:      {} vertices, {} stored entries (directed)\n", A.nrows(), A.nvals());
  fmt::print("sources:    {} random vertices with out-edges (seed {})\n", sources.size(), source_choice.seed);
  fmt::print("device:     {} [{}]\n", device_desc, gbcuda::to_string(r.backend));
  fmt::print(
      "searched:   {} searches in {} pass{} of up to {}; {:.1f} vertices reached on average, {} levels at most\n",
      sources.size(), r.passes, r.passes == 1 ? "" : "es", gbcuda::kSourcesPerPass,
      double(reached) / double(sources.size()), r.num_levels);
  fmt::print("time:       {:.6f} s for all (median of {}, min {:.6f} s), {:.6f} s per search\n", t_median, o.repeat,
             t_min, t_median / double(sources.size()));
  fmt::print("GTEPS:      {:.4f} ({} edges summed over the searches / median time)\n", gteps, r.edges_traversed);
  if (single)
    fmt::print("single:     {:.6f} s for the same sources one bfs() each ({:.2f}x the multi-source time)\n", *single,
               t_median > 0 ? *single / t_median : 0.0);
  if (o.validate) fmt::print("validated:  yes (every search's levels equal its own BFS's)\n");
  return kExitOk;
}

// load -> choose the source and search -> write the columns -> report.
int run(const Options& o, bool file_given) {
  const bool algebra = o.kernel == kAlgebra;
  gbcuda::BfsKernel kernel = gbcuda::BfsKernel::Auto;
  if (!algebra) {
    try {
      kernel = gbcuda_cli::parse_bfs_kernel(o.kernel);
    } catch (const gbcuda::Error& e) {  // name algebra too
      std::string msg = e.what();
      if (!msg.empty() && msg.back() == ')') msg.insert(msg.size() - 1, std::string(", ") + kAlgebra);
      throw UsageError{msg};
    }
  }
  std::string file = o.file;
  if (!file_given) {
    file = bundled_matrix();
    fmt::print(stderr, "bfs_spmv: no FILE given; using the bundled matrix {}\n", file);
  }
  const SourceChoice source_choice = o.source_given ? parse_source(o.source) : SourceChoice{};
  const Outputs outs = check_outputs(o, file_given && gbcuda::is_graph_spec(file) ? std::string() : file);
  const gbcuda::Direction direction = parse_direction(o.direction);
  const gbcuda::Backend backend = gbcuda::resolve_device(gbcuda::parse_device(o.device));
  gbcuda::check_bfs_kernel(kernel, backend);  // before loading: a large file need not be read first
  const std::string device_desc = gbcuda::backend_description(backend);

  if (o.multi_source > 0) {  // before loading, as above
    if (o.partitions > 0) throw UsageError{"--multi-source and --partitions do not go together"};
    if (algebra || kernel != gbcuda::BfsKernel::Auto)
      throw UsageError{"--multi-source runs its own level loop: no --kernel"};
    if (direction != gbcuda::Direction::Auto)
      throw UsageError{"--multi-source chooses the direction itself: no --direction"};
    if (outs.levels || outs.parents) throw UsageError{"--multi-source writes no --levels or --parents"};
    if (o.source_given && source_choice.kind != SourceChoice::Kind::Random)
      throw UsageError{"--multi-source draws its sources at random: --source random:SEED sets the seed"};
  }
  if (o.partitions > 0) {  // before loading, as above
    if (algebra || kernel != gbcuda::BfsKernel::Auto)
      throw UsageError{"--partitions runs its own level loop: no --kernel"};
    if (direction != gbcuda::Direction::Auto)
      throw UsageError{"--partitions chooses the direction itself: no --direction"};
    if (gbcuda::parse_transport(o.transport) == gbcuda::Transport::Nccl && backend != gbcuda::Backend::Cuda)
      throw UsageError{"--transport nccl runs on GPUs: not with --device host"};
  } else if (o.transport != "loopback" || !o.gpus.empty()) {
    throw UsageError{"--transport and --gpus go with --partitions"};
  }
  const Graph g = load(o, file, file_given, backend, outs);
  if (o.multi_source > 0) return run_multi_source(o, g, source_choice, backend, device_desc);
  const bool parents = o.validate || outs.parents.has_value();
  const std::optional<Search> s =
      search(o, g, source_choice, backend, direction, kernel, algebra, parents, device_desc);
  if (!s) return kExitFailure;

  auto write_result = [&](const std::optional<Output>& out, const auto& column, const char* what) {
    if (!out) return;
    write_column(*out, column);
    if (o.verbose) fmt::print(stderr, "bfs_spmv: wrote {} to {}\n", what, out->to_stdout ? "stdout" : out->path);
  };
  write_result(outs.levels, s->result.level, "levels");
  write_result(outs.parents, s->result.parent, "parents");

  std::FILE* const out = outs.to_stdout() ? stderr : stdout;  // stdout holds a result column
  report(out, o, file_given, g, *s, source_choice, direction, kernel, algebra, device_desc);
  std::fflush(out);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app;
  app.name("bfs_spmv");
  Options o;
  build_cli(app, o);
  if (const auto stop = gbcuda_cli::parse_arguments(app, argc, argv, "bfs_spmv")) return *stop;
  o.source_given = app.count("--source") > 0;
  const bool file_given = app.count("FILE") > 0;
  if (o.kernel == "list") {
    print_kernel_list();
    return kExitOk;
  }

  return gbcuda_cli::run_reporting_errors("bfs_spmv", [&] { return run(o, file_given); });
}
