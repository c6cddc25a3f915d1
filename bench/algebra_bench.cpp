// algebra_bench: what gbcuda's algebra costs beside SuiteSparse:GraphBLAS and cuSPARSE. Per graph:
// an unmasked SpMV (mxv over PlusTimes<float> and <double>), on request an unmasked SpGEMM (A * A
// over PlusTimes<double>), the examples of examples/ run as a user runs them (Bellman-Ford,
// PageRank, triangles) and the library's connected components; then the per-call latency
// of small operations. Each case runs on the chosen device, on the gbcuda host backend, with
// GraphBLAS on all cores, and (SpMV, SpGEMM, CUDA builds) with cuSPARSE on the same CSR; answers are
// checked against GraphBLAS's. A table on stdout, every number in --json.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "cli_graph.hpp"
#include "graphblas_algorithms.hpp"
#include "pagerank/pagerank.hpp"
#include "sssp/sssp.hpp"
#include "tc/tc.hpp"

#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kPresetStandard = {"kron:22:16", "urand:22:16", "kron:18:16"};
const std::vector<std::string> kPresetSmall = {"kron:14:16", "urand:14:16"};
const std::vector<std::string> kCases = {"spmv-f32", "spmv-f64", "sssp",    "pagerank",
                                         "cc",       "tc",       "mxm-f64", "ewise-f64"};
// Cases run only when --cases names them (A * A of a standard graph has billions of entries; the
// element-wise add holds three matrices of the graph's size).
const std::vector<std::string> kOptInCases = {"mxm-f64", "ewise-f64"};

struct Options {
  std::vector<std::string> graphs;
  std::string preset;
  std::string cases = "all";
  int repeat = 5;
  int warmup = 1;
  std::string device = "auto";
  std::string json_file;
  bool no_graphblas = false;
  bool no_host = false;
  bool no_latency = false;
  bool host_driven_loops = false;  // the examples' device loops run as plain loops
  std::uint64_t seed = 1;
  Index tc_max_entries = Index(1) << 26;
  gbcuda_cli::ReaderFlags read;  // how GRAPH files are read
};

struct Row {
  Row(std::string g, std::string w, std::string i, std::string d)
      : graph(std::move(g)), which(std::move(w)), impl(std::move(i)), device(std::move(d)) {}
  std::string graph, which, impl, device, status = "ok", note;
  std::vector<double> seconds;
  int rounds = 0;
};

// Times `run` (which returns nothing) on `where`: CUDA events on the library stream around it on
// the GPU, a steady clock on the host. Each call is one complete run (it ends with the results
// the host needs).
template <class F>
double time_once(Backend where, F&& run) {
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    auto stream = static_cast<cudaStream_t>(gbcuda::cuda_stream());
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, stream);
    run();
    cudaEventRecord(b, stream);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return double(ms) * 1e-3;
  }
#endif
  (void)where;
  const auto t0 = Clock::now();
  run();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class F>
void repeat_timed(Row& row, Backend where, const Options& o, F&& run) {
  for (int i = 0; i < o.warmup; ++i) run();
  for (int i = 0; i < o.repeat; ++i) row.seconds.push_back(time_once(where, run));
}

// "" when every value is within `rel` of the expected one (relative; integers and infinities
// exactly), else the first difference.
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want, double rel) {
  if (got.size() != want.size()) return fmt::format("{} values, expected {}", got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = double(got[i]), w = double(want[i]);
    const bool ok = std::is_integral_v<T> || std::isinf(w) ? g == w : std::abs(g - w) <= rel * std::abs(w) + 1e-30;
    if (!ok) return fmt::format("at {}: {}, expected {}", i, g, w);
  }
  return "";
}

// The graph's weighted copy: weight of entry p = 1 + (p * 2654435761 + seed) % 255, the same on
// every run (integers, so min-plus sums are exact in float).
template <class T>
gbcuda::Matrix<T> weighted(const gbcuda::Matrix<bool>& G, std::uint64_t seed) {
  const auto& g = G.csr(Backend::Host);
  gbcuda::Csr<T> c;
  c.nrows = g.nrows;
  c.ncols = g.ncols;
  c.row_ptr = g.row_ptr.clone(Backend::Host);
  c.col_idx = g.col_idx.clone(Backend::Host);
  c.values = gbcuda::detail::Array<T>(static_cast<std::size_t>(g.nvals()), Backend::Host);
  T* v = c.values.data();
  const Index nnz = g.nvals();
#pragma omp parallel for schedule(static)
  for (Index p = 0; p < nnz; ++p) v[p] = T(1 + (std::uint64_t(p) * 2654435761ull + seed) % 255);
  return gbcuda::Matrix<T>::from_valid_csr(std::move(c), G.is_symmetric_structure());
}

class Bench {
 public:
  Bench(const Options& o, Backend device) : o_(o), device_(device) {}
  void run_graph(const std::string& name);
  void run_latency();
  int print_table() const;
  Json to_json(const std::string& command_line) const;

 private:
  bool wants(const std::string& c) const {
    if (o_.cases == "all") return std::find(kOptInCases.begin(), kOptInCases.end(), c) == kOptInCases.end();
    return ("," + o_.cases + ",").find("," + c + ",") != std::string::npos;
  }
  std::vector<Backend> gbcuda_backends() const {
    std::vector<Backend> b{device_};
    if (device_ == Backend::Cuda && !o_.no_host) b.push_back(Backend::Host);
    return b;
  }
  void add(Row r) {
    fmt::print(stderr, "algebra_bench: {} {} {}: {}\n", r.graph, r.which, r.impl,
               r.seconds.empty() ? r.status : fmt::format("{:.3f} ms", gbcuda_cli::median(r.seconds) * 1e3));
    if (r.status == "FAILED") failed_ = true;
    rows_.push_back(std::move(r));
  }
  template <class T>
  void spmv(const std::string& graph, const gbcuda::Matrix<bool>& G, const gbref::Matrix* gG);
  void spgemm(const std::string& graph, const gbcuda::Matrix<bool>& G);
  void ewise(const std::string& graph, const gbcuda::Matrix<bool>& G);
  // One algorithm: GraphBLAS's runs when `with_grb` (`grb()` times itself; its last answer is the
  // reference), then gbcuda's on each backend (`run(b)` returns the answer and its rounds, or what
  // `answer` turns into them after the timing: a result a program keeps in the backend's memory),
  // each answer compared with the reference to a relative `rel`.
  struct AsIs {
    template <class X>
    X operator()(X&& x) const {
      return std::forward<X>(x);
    }
  };
  template <class T, class Grb, class Run, class Answer = AsIs>
  void algorithm_case(const std::string& graph, const char* which, bool with_grb, Grb&& grb, Run&& run, double rel,
                      Answer&& answer = {}) {
    std::optional<std::vector<T>> want;
    if (with_grb) {
      Row r{graph, which, "graphblas", "host"};
      for (int i = 0; i < o_.warmup + o_.repeat; ++i) {
        gbref::Result<T> res = grb();
        if (i >= o_.warmup) r.seconds.push_back(res.seconds);
        r.rounds = res.rounds;
        want = std::move(res.values);
      }
      add(std::move(r));
    }
    for (Backend b : gbcuda_backends()) {
      Row r{graph, which, "gbcuda", gbcuda::to_string(b)};
      std::optional<decltype(run(b))> kept;
      repeat_timed(r, b, o_, [&] { kept.emplace(run(b)); });
      const std::pair<std::vector<T>, int> out = answer(std::move(*kept));
      r.rounds = out.second;
      if (want) {
        const std::string bad = compare(out.first, *want, rel);
        if (!bad.empty()) r.status = "FAILED", r.note = bad;
      }
      add(std::move(r));
    }
  }
  void triangles(const std::string& name, const gbcuda::Matrix<bool>& G, const gbref::Matrix* gG);
  // How the last run of an example's device loop went, on the GPU (stderr).
  void report_loop(const std::string& graph, const char* what) {
    if (last_loop.captures > 0 || !last_loop.note.empty())
      fmt::print(stderr, "algebra_bench: {} {} loop: {}, {} iterations, {} captures, {:.3f} ms to the launch\n", graph,
                 what, last_loop.on_device ? "on the device" : last_loop.note, last_loop.iterations, last_loop.captures,
                 last_loop.capture_seconds * 1e3);
    last_loop = {};
  }

  const Options& o_;
  gbcuda::LoopResult last_loop;
  Backend device_;
  std::vector<Row> rows_;
  bool failed_ = false;
};

template <class T>
void Bench::spmv(const std::string& graph, const gbcuda::Matrix<bool>& G, const gbref::Matrix*) {
  const std::string which = std::is_same_v<T, float> ? "spmv-f32" : "spmv-f64";
  const gbcuda::Matrix<T> A = weighted<T>(G, o_.seed);
  const Index n = A.nrows();
  std::vector<T> ux(static_cast<std::size_t>(n));
  std::vector<Index> all(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    ux[std::size_t(i)] = T(1 + i % 7) / T(4);
    all[std::size_t(i)] = i;
  }
  std::optional<std::vector<T>> want;
  double grb_seconds = 0;
  if (!o_.no_graphblas) {
    gbref::Matrix gA;
    gbref::import(A, gA);
    gbref::Vector gu = gbref::from_dense(ux);
    Row r{graph, which, "graphblas", "host"};
    for (int i = 0; i < o_.warmup + o_.repeat; ++i) {
      auto res = gbref::spmv<T>(gA, gu, n);
      if (i >= o_.warmup) r.seconds.push_back(res.seconds);
      want = std::move(res.values);
    }
    (void)grb_seconds;
    add(std::move(r));
  }
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  for (Backend b : gbcuda_backends()) {
    Row r{graph, which, "gbcuda", gbcuda::to_string(b)};
    const gbcuda::Vector<T> u = gbcuda::Vector<T>::from_tuples(n, all, ux, b);
    gbcuda::Vector<T> w(n, b);
    A.csr(b);  // resident before timing
    repeat_timed(r, b, o_, [&] { gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, u); });
    if (want) {
      const std::string bad = compare(w.to_dense_vector(T(0)), *want, tol);
      if (!bad.empty()) r.status = "FAILED", r.note = bad;
    }
    add(std::move(r));
  }
  if (device_ == Backend::Cuda) {  // the library's own pull, which auto leaves to cuSPARSE here
    const gbcuda::Vector<T> u = gbcuda::Vector<T>::from_tuples(n, all, ux, Backend::Cuda);
    gbcuda::Vector<T> w(n, Backend::Cuda);
    Row r{graph, which, "gbcuda-own-pull", "cuda"};
    const auto d = gbcuda::Descriptor{}.with_kernel(gbcuda::ProductKernel::Pull);
    repeat_timed(r, Backend::Cuda, o_,
                 [&] { gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, u, d); });
    if (want) {
      const std::string bad = compare(w.to_dense_vector(T(0)), *want, tol);
      if (!bad.empty()) r.status = "FAILED", r.note = bad;
    }
    add(std::move(r));
#if GBCUDA_HAVE_CUDA
    // The engine alone: cuSPARSE behind the library's wrapper (the output allocated, the rows'
    // presence copied, the descriptor kept between calls), without the GraphBLAS call around it.
    Row e{graph, which, "gbcuda-engine", "cuda"};
    const T* x = u.store().values.data();
    const auto a = gbcuda::detail::view(A.csr(Backend::Cuda));
    const std::int32_t* rp32 = gbcuda::detail::device_row_offsets32(A);
    const std::shared_ptr<void> engine = gbcuda::detail::cuda::make_spmv_engine();
    repeat_timed(e, Backend::Cuda, o_, [&] {
      gbcuda::detail::VectorStore<T> t;
      gbcuda::detail::cuda::library_spmv<T>(t, a, rp32, x, engine.get());
    });
    add(std::move(e));
#endif
  }
#if GBCUDA_HAVE_CUDA
  if (device_ == Backend::Cuda) {
    Row r{graph, which, "cusparse", "cuda"};
    const auto& a = A.csr(Backend::Cuda);
    if (a.nvals() >= (Index(1) << 31)) {
      r.status = "skipped";
      r.note = "more than 2^31 entries: cuSPARSE's 32-bit indices do not reach";
    } else {
      // cuSPARSE with 32-bit row offsets (its fastest path), converted outside the timing.
      std::vector<std::int32_t> rp32(static_cast<std::size_t>(n) + 1);
      const auto& ah = A.csr(Backend::Host);
      for (Index i = 0; i <= n; ++i) rp32[std::size_t(i)] = std::int32_t(ah.row_ptr.data()[i]);
      gbcuda::detail::Array<std::int32_t> rp(rp32, Backend::Cuda);
      gbcuda::detail::Array<T> x(ux, Backend::Cuda), y(static_cast<std::size_t>(n), Backend::Cuda);
      auto stream = static_cast<cudaStream_t>(gbcuda::cuda_stream());
      cusparseHandle_t h;
      cusparseCreate(&h);
      cusparseSetStream(h, stream);
      const cudaDataType dt = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
      cusparseSpMatDescr_t M;
      cusparseDnVecDescr_t X, Y;
      cusparseCreateCsr(&M, n, n, a.nvals(), rp.data(), const_cast<std::int32_t*>(a.col_idx.data()),
                        const_cast<T*>(a.values.data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, dt);
      cusparseCreateDnVec(&X, n, x.data(), dt);
      cusparseCreateDnVec(&Y, n, y.data(), dt);
      const T alpha = 1, beta = 0;
      double best = 1e300;
      for (cusparseSpMVAlg_t alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
        std::size_t bytes = 0;
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, M, X, &beta, Y, dt, alg, &bytes);
        gbcuda::detail::Array<std::uint8_t> buf(std::max<std::size_t>(bytes, 1), Backend::Cuda);
        Row tr{graph, which, alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse-alg1" : "cusparse-alg2", "cuda"};
        repeat_timed(tr, Backend::Cuda, o_, [&] {
          if (cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, M, X, &beta, Y, dt, alg, buf.data()) !=
              CUSPARSE_STATUS_SUCCESS)
            throw std::runtime_error("cusparseSpMV failed");
        });
        if (want) {
          const std::string bad = compare(y.to_vector(), *want, tol);
          if (!bad.empty()) tr.status = "FAILED", tr.note = bad;
        }
        best = std::min(best, gbcuda_cli::median(tr.seconds));
        add(std::move(tr));
      }
      (void)best;
      cusparseDestroySpMat(M);
      cusparseDestroyDnVec(X);
      cusparseDestroyDnVec(Y);
      cusparseDestroy(h);
      return;
    }
    add(std::move(r));
  }
#endif
}

void Bench::run_graph(const std::string& name) {
  fmt::print(stderr, "algebra_bench: loading {}\n", name);
  const gbcuda::ReadOptions read =
      gbcuda::is_graph_spec(name) ? gbcuda::ReadOptions{} : gbcuda_cli::reader_options(o_.read);
  gbcuda::Matrix<bool> G = gbcuda_cli::load_graph(name, device_, read).matrix;
  if (G.nrows() != G.ncols() || G.nrows() == 0)
    throw gbcuda_cli::UsageError{fmt::format("{}: need a non-empty square matrix", name)};
  if (!G.is_symmetric_structure() && (wants("cc") || wants("tc")))
    G = G.symmetrized();  // components, triangles: undirected
  const Index n = G.nrows();
  std::optional<gbref::Matrix> gG;
  const bool tc_here = wants("tc") && G.nvals() <= o_.tc_max_entries;
  if (!o_.no_graphblas && (wants("sssp") || wants("pagerank") || wants("cc") || tc_here)) {
    gG.emplace();
    gbref::import(G, *gG);
  }
  if (wants("spmv-f32")) spmv<float>(name, G, nullptr);
  if (wants("spmv-f64")) spmv<double>(name, G, nullptr);
  if (wants("mxm-f64")) spgemm(name, G);
  if (wants("ewise-f64")) ewise(name, G);

  if (wants("sssp")) {
    const gbcuda::Matrix<float> W = weighted<float>(G, o_.seed);
    const Index source = gbcuda_cli::max_out_degree_vertex(G.out_degrees());
    std::optional<gbref::Matrix> gW;
    if (!o_.no_graphblas) gbref::import(W, gW.emplace());
    for (Backend b : gbcuda_backends()) W.transpose().csr(b);  // resident before timing
    algorithm_case<float>(
        name, "sssp", gW.has_value(), [&] { return gbref::sssp<float>(*gW, n, source, example::unreachable<float>()); },
        [&](Backend b) {
          gbcuda::LoopOptions loop;
          loop.host_driven = o_.host_driven_loops;
          auto out = example::sssp(W, source, b, loop);
          last_loop = out.loop;
          return std::make_pair(std::move(out.distance), out.rounds);
        },
        0.0);
    report_loop(name, "sssp");
  }
  if (wants("pagerank") || wants("cc"))
    for (Backend b : gbcuda_backends()) G.transpose().csr(b);  // resident before timing
  if (wants("pagerank"))  // 20 iterations, as the GAP benchmark times it (tolerance 0)
    algorithm_case<float>(
        name, "pagerank", gG.has_value(), [&] { return gbref::pagerank<float>(*gG, G.out_degrees(), 0.85f, 0.0f, 20); },
        [&](Backend b) {
          gbcuda::LoopOptions loop;
          loop.host_driven = o_.host_driven_loops;
          auto out = example::pagerank<bool, float>(G, b, 0.85f, 0.0f, 20, loop);
          last_loop = out.loop;
          return std::make_pair(std::move(out.rank), out.iterations);
        },
        1e-3);
  if (wants("pagerank")) report_loop(name, "pagerank");
  if (wants("cc"))  // the library's call, its labels left where they are; the host copy untimed
    algorithm_case<std::int64_t>(
        name, "cc", gG.has_value(), [&] { return gbref::components(*gG, n); },
        [&](Backend b) { return gbcuda::connected_components(G, b); }, 0.0,
        [](const gbcuda::Vector<std::int64_t>& c) { return std::make_pair(c.to_dense_vector(-1), 1); });
  if (wants("tc")) triangles(name, G, gG ? &*gG : nullptr);
}

// C = A * A over PlusTimes<double>, A the weighted graph: gbcuda on each backend, cuSPARSE's SpGEMM on
// the same CSR (CUDA builds), GraphBLAS; answers compared by C's entry count and row sums.
// C = A + B over Plus<double>, B being A with every column moved one to the right (the last to
// the first): the same row lengths, the patterns partly apart, so the union merges rows of every
// length. Checked by C's entry count and row sums against GraphBLAS's eWiseAdd.
void Bench::ewise(const std::string& graph, const gbcuda::Matrix<bool>& G) {
  using T = double;
  const gbcuda::Matrix<T> A = weighted<T>(G, o_.seed);
  const Index n = A.nrows(), m = A.ncols();
  gbcuda::Matrix<T> B;
  {
    const auto& a = A.csr(Backend::Host);
    gbcuda::Csr<T> b;
    b.nrows = n;
    b.ncols = m;
    b.row_ptr = a.row_ptr.clone(Backend::Host);
    b.col_idx = gbcuda::detail::Array<gbcuda::Vid>(a.col_idx.size(), Backend::Host);
    b.values = gbcuda::detail::Array<T>(a.values.size(), Backend::Host);
    for (Index i = 0; i < n; ++i) {
      const gbcuda::Offset lo = a.row_ptr.data()[i], hi = a.row_ptr.data()[i + 1];
      const bool wraps = hi > lo && a.col_idx.data()[hi - 1] == m - 1;  // the last column goes first
      gbcuda::Offset q = lo;
      if (wraps) b.col_idx.data()[q] = 0, b.values.data()[q++] = a.values.data()[hi - 1];
      for (gbcuda::Offset p = lo; p < hi - (wraps ? 1 : 0); ++p)
        b.col_idx.data()[q] = a.col_idx.data()[p] + 1, b.values.data()[q++] = a.values.data()[p];
    }
    B = gbcuda::Matrix<T>::from_valid_csr(std::move(b));
  }
  auto row_sums = [](const gbcuda::Csr<T>& c) {
    std::vector<T> s(static_cast<std::size_t>(c.nrows), T(0));
    for (Index i = 0; i < c.nrows; ++i)
      for (gbcuda::Offset p = c.row_ptr.data()[i]; p < c.row_ptr.data()[i + 1]; ++p)
        s[std::size_t(i)] += c.is_iso() ? c.iso_value : c.values.data()[p];
    return s;
  };
  std::optional<std::vector<T>> want;
  Index want_nvals = -1;
  if (!o_.no_graphblas) {
    gbref::Matrix gA, gB;
    gbref::import(A, gA);
    gbref::import(B, gB);
    Row r{graph, "ewise-f64", "graphblas", "host"};
    for (int i = 0; i < o_.warmup + o_.repeat; ++i) {
      auto res = gbref::ewise_add_row_sums(gA, gB, n, m);
      if (i >= o_.warmup) r.seconds.push_back(res.seconds);
      want = std::move(res.values);
      want_nvals = res.entries;
    }
    r.note = fmt::format("{} entries", want_nvals);
    add(std::move(r));
  }
  for (Backend b : gbcuda_backends()) {
    Row r{graph, "ewise-f64", "gbcuda", gbcuda::to_string(b)};
    A.csr(b);
    B.csr(b);
    gbcuda::Matrix<T> C;
    repeat_timed(r, b, o_,
                 [&] { gbcuda::ewise_add(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Plus<T>{}, A, B, {}, b); });
    r.note = fmt::format("{} entries", C.nvals());
    if (want) {
      const std::string bad = C.nvals() == want_nvals ? compare(row_sums(C.csr(Backend::Host)), *want, 1e-12)
                                                      : fmt::format("expected {} entries", want_nvals);
      if (!bad.empty()) r.status = "FAILED", r.note += ": " + bad;
    }
    add(std::move(r));
  }
}

void Bench::spgemm(const std::string& graph, const gbcuda::Matrix<bool>& G) {
  using T = double;
  const gbcuda::Matrix<T> A = weighted<T>(G, o_.seed);
  const Index n = A.nrows();
  Index products = 0;  // over A's entries (i, k), the length of row k
  {
    const auto& ah = A.csr(Backend::Host);
    for (Index p = 0; p < ah.nvals(); ++p) {
      const auto k = ah.col_idx.data()[p];
      products += ah.row_ptr.data()[k + 1] - ah.row_ptr.data()[k];
    }
  }
  auto row_sums = [](const gbcuda::Csr<T>& c) {
    std::vector<T> s(static_cast<std::size_t>(c.nrows), T(0));
    for (Index i = 0; i < c.nrows; ++i)
      for (gbcuda::Offset p = c.row_ptr.data()[i]; p < c.row_ptr.data()[i + 1]; ++p)
        s[std::size_t(i)] += c.values.data()[p];
    return s;
  };
  std::optional<std::vector<T>> want;
  Index want_nvals = -1;
  if (!o_.no_graphblas) {
    gbref::Matrix gA;
    gbref::import(A, gA);
    Row r{graph, "mxm-f64", "graphblas", "host"};
    for (int i = 0; i < o_.warmup + o_.repeat; ++i) {
      auto res = gbref::spgemm_row_sums(gA, n);
      if (i >= o_.warmup) r.seconds.push_back(res.seconds);
      want = std::move(res.values);
      want_nvals = res.entries;
    }
    r.note = fmt::format("{} entries, {} products", want_nvals, products);
    add(std::move(r));
  }
  auto check = [&](Row& r, Index nvals, const std::vector<T>& sums) {
    r.note = fmt::format("{} entries, {} products", nvals, products);
    if (!want) return;
    std::string bad = nvals == want_nvals ? compare(sums, *want, 1e-9) : fmt::format("expected {} entries", want_nvals);
    if (!bad.empty()) r.status = "FAILED", r.note += ": " + bad;
  };
  for (Backend b : gbcuda_backends()) {
    Row r{graph, "mxm-f64", "gbcuda", gbcuda::to_string(b)};
    A.csr(b);
    gbcuda::Matrix<T> C;
    repeat_timed(r, b, o_,
                 [&] { gbcuda::mxm(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, A, {}, b); });
    check(r, C.nvals(), row_sums(C.csr(Backend::Host)));
    add(std::move(r));
  }
#if GBCUDA_HAVE_CUDA
  if (device_ == Backend::Cuda) {
    Row r{graph, "mxm-f64", "cusparse", "cuda"};
    const auto& a = A.csr(Backend::Cuda);
    if (a.nvals() >= (Index(1) << 31)) {
      r.status = "skipped";
      r.note = "more than 2^31 entries: cuSPARSE's 32-bit indices do not reach";
      add(std::move(r));
      return;
    }
    // cusparseSpGEMM's sequence with 32-bit row offsets, converted outside the timing; C's arrays
    // allocated inside it, as any caller must.
    std::vector<std::int32_t> rp32(static_cast<std::size_t>(n) + 1);
    const auto& ah = A.csr(Backend::Host);
    for (Index i = 0; i <= n; ++i) rp32[std::size_t(i)] = std::int32_t(ah.row_ptr.data()[i]);
    gbcuda::detail::Array<std::int32_t> rp(rp32, Backend::Cuda);
    cusparseHandle_t h;
    cusparseCreate(&h);
    cusparseSetStream(h, static_cast<cudaStream_t>(gbcuda::cuda_stream()));
    auto ok = [](cusparseStatus_t st, const char* what) {
      if (st != CUSPARSE_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("{} failed: {}", what, cusparseGetErrorString(st)));
    };
    cusparseSpMatDescr_t M;
    ok(cusparseCreateCsr(&M, n, n, a.nvals(), rp.data(), const_cast<std::int32_t*>(a.col_idx.data()),
                         const_cast<T*>(a.values.data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
       "cusparseCreateCsr");
    const T alpha = 1, beta = 0;
    constexpr auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::int64_t nnz = 0;
    gbcuda::detail::Array<std::int32_t> crp, ccol;
    gbcuda::detail::Array<T> cval;
    // One product by `alg` (ALG3: `fraction` of the products at a time); false when cuSPARSE's
    // work space does not fit (as gbcuda does, ALG1 first, then ALG3 on smaller fractions).
    auto product = [&](cusparseSpGEMMAlg_t alg, float fraction) {
      cusparseSpMatDescr_t C;
      cusparseSpGEMMDescr_t sd;
      crp = gbcuda::detail::Array<std::int32_t>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
      ok(cusparseCreateCsr(&C, n, n, 0, crp.data(), nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
         "cusparseCreateCsr");
      ok(cusparseSpGEMM_createDescr(&sd), "cusparseSpGEMM_createDescr");
      auto done = [&](bool fit) {
        cusparseSpGEMM_destroyDescr(sd);
        cusparseDestroySpMat(C);
        return fit;
      };
      auto fits = [&](cusparseStatus_t st, const char* what) {
        if (st == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES || st == CUSPARSE_STATUS_ALLOC_FAILED) return false;
        ok(st, what);
        return true;
      };
      try {
        std::size_t b1 = 0, b2 = 0, b3 = 0;
        if (!fits(cusparseSpGEMM_workEstimation(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, &b1, nullptr),
                  "workEstimation"))
          return done(false);
        gbcuda::detail::Array<std::uint8_t> w1(std::max<std::size_t>(b1, 1), Backend::Cuda);
        if (!fits(cusparseSpGEMM_workEstimation(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, &b1, w1.data()),
                  "workEstimation"))
          return done(false);
        if (alg == CUSPARSE_SPGEMM_DEFAULT) {
          if (!fits(cusparseSpGEMM_compute(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, &b2, nullptr),
                    "compute"))
            return done(false);
        } else {
          if (!fits(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, fraction, &b3,
                                                  nullptr, nullptr),
                    "estimateMemory"))
            return done(false);
          gbcuda::detail::Array<std::uint8_t> w3(std::max<std::size_t>(b3, 1), Backend::Cuda);
          if (!fits(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, fraction, &b3,
                                                  w3.data(), &b2),
                    "estimateMemory"))
            return done(false);
        }
        gbcuda::detail::Array<std::uint8_t> w2(std::max<std::size_t>(b2, 1), Backend::Cuda);
        if (!fits(cusparseSpGEMM_compute(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd, &b2, w2.data()),
                  "compute"))
          return done(false);
        std::int64_t rows = 0, cols = 0;
        ok(cusparseSpMatGetSize(C, &rows, &cols, &nnz), "cusparseSpMatGetSize");
        ccol = gbcuda::detail::Array<std::int32_t>(static_cast<std::size_t>(nnz), Backend::Cuda);
        cval = gbcuda::detail::Array<T>(static_cast<std::size_t>(nnz), Backend::Cuda);
        ok(cusparseCsrSetPointers(C, crp.data(), ccol.data(), cval.data()), "cusparseCsrSetPointers");
        ok(cusparseSpGEMM_copy(h, op, op, &alpha, M, M, &beta, C, CUDA_R_64F, alg, sd), "cusparseSpGEMM_copy");
      } catch (const gbcuda::Error& e) {  // an Array that did not fit
        if (e.status() != gbcuda::Status::OutOfMemory) throw;
        cudaGetLastError();
        return done(false);
      }
      return done(true);
    };
    // The first algorithm whose work space fits, found once before the timing.
    const std::pair<cusparseSpGEMMAlg_t, float> algs[] = {{CUSPARSE_SPGEMM_DEFAULT, 0.0f},
                                                          {CUSPARSE_SPGEMM_ALG3, 0.2f},
                                                          {CUSPARSE_SPGEMM_ALG3, 0.05f},
                                                          {CUSPARSE_SPGEMM_ALG3, 0.01f}};
    int chosen = -1;
    for (int k = 0; k < int(std::size(algs)) && chosen < 0; ++k)
      if (product(algs[k].first, algs[k].second)) chosen = k;
    if (chosen < 0) {
      r.status = "skipped";
      r.note = "cuSPARSE's work space does not fit";
      cusparseDestroySpMat(M);
      cusparseDestroy(h);
      add(std::move(r));
      return;
    }
    repeat_timed(r, Backend::Cuda, o_, [&] { product(algs[chosen].first, algs[chosen].second); });
    const std::vector<std::int32_t> hrp = crp.to_vector(), hcol = ccol.to_vector();
    const std::vector<T> hval = cval.to_vector();
    std::vector<T> sums(static_cast<std::size_t>(n), T(0));
    Index unsorted_rows = 0;  // rows whose columns cuSPARSE left out of order
    for (Index i = 0; i < n; ++i) {
      for (std::int32_t p = hrp[std::size_t(i)]; p < hrp[std::size_t(i) + 1]; ++p)
        sums[std::size_t(i)] += hval[std::size_t(p)];
      for (std::int32_t p = hrp[std::size_t(i)] + 1; p < hrp[std::size_t(i) + 1]; ++p)
        if (hcol[std::size_t(p) - 1] >= hcol[std::size_t(p)]) {
          ++unsorted_rows;
          break;
        }
    }
    check(r, nnz, sums);
    r.note += chosen == 0 ? " (ALG1" : fmt::format(" (ALG3, {} of the products at a time", algs[chosen].second);
    r.note += fmt::format("; {} rows unsorted)", unsorted_rows);
    cusparseDestroySpMat(M);
    cusparseDestroy(h);
    add(std::move(r));
  }
#endif
}

// Triangles (examples/tc) on graphs of at most --tc-max-entries entries.
void Bench::triangles(const std::string& name, const gbcuda::Matrix<bool>& G, const gbref::Matrix* gG) {
  if (G.nvals() > o_.tc_max_entries) {
    Row r{name, "tc", "all", "-"};
    r.status = "skipped";
    r.note = fmt::format("more than --tc-max-entries {} entries", o_.tc_max_entries);
    add(std::move(r));
    return;
  }
  std::optional<std::int64_t> want;
  if (gG) {
    Row r{name, "tc", "graphblas", "host"};
    for (int i = 0; i < o_.warmup + o_.repeat; ++i) {
      auto res = gbref::triangles(*gG, G.nrows());
      if (i >= o_.warmup) r.seconds.push_back(res.seconds);
      want = res.values[0];
    }
    r.note = fmt::format("{} triangles", *want);
    add(std::move(r));
  }
  for (Backend b : gbcuda_backends()) {
    Row r{name, "tc", "gbcuda", gbcuda::to_string(b)};
    G.csr(b);
    std::int64_t got = 0;
    repeat_timed(r, b, o_, [&] { got = example::triangle_count(G, b); });
    r.note = fmt::format("{} triangles", got);
    if (want && got != *want) r.status = "FAILED", r.note += fmt::format(", expected {}", *want);
    add(std::move(r));
  }
}

// Per-call latency of small operations on a 1024-vertex graph: the mean of 1000 calls, the device
// synchronised once at the end (a call that waits by itself, reduce, waits every time).
void Bench::run_latency() {
  const gbcuda::Matrix<bool> G = gbcuda::generate_graph("urand:10:8", device_);
  const gbcuda::Matrix<float> A = weighted<float>(G, o_.seed);
  const Index n = G.nrows();
  for (Backend b : gbcuda_backends()) {
    A.csr(b);
    G.csr(b);
    gbcuda::Vector<float> u = gbcuda::Vector<float>::full(n, 1.0f, b), w(n, b), v = u;
    gbcuda::Vector<bool> q(n, b), seen(n, b);
    q.set_element(3, true);
    seen.set_element(3, true);
    const int calls = 1000;
    auto per_call = [&](const char* what, auto&& op) {
      Row r{"urand:10:8", std::string("latency:") + what, "gbcuda", gbcuda::to_string(b)};
      for (int k = 0; k < 10; ++k) op();
      for (int rep = 0; rep < o_.repeat; ++rep)
        r.seconds.push_back(time_once(b,
                                      [&] {
                                        for (int k = 0; k < calls; ++k) op();
                                      }) /
                            calls);
      add(std::move(r));
    };
    per_call("mxv", [&] { gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<float>{}, A, u); });
    per_call("vxm-bfs-step", [&] {
      gbcuda::Vector<bool> next(n, b);
      gbcuda::vxm(next, seen, gbcuda::no_accum, gbcuda::AnyPair<bool>{}, q, G, gbcuda::desc::RSC);
    });
    per_call("assign", [&] { gbcuda::assign(w, gbcuda::no_mask, gbcuda::no_accum, 2.0f); });
    per_call("ewise_add",
             [&] { gbcuda::ewise_add(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Plus<float>{}, u, v); });
    per_call("reduce", [&] { (void)gbcuda::reduce(gbcuda::PlusMonoid<float>{}, u); });
  }
}

int Bench::print_table() const {
  fmt::print("{:<14} {:<20} {:<14} {:<6} {:>10} {:>10} {:>7}  {}\n", "graph", "case", "impl", "device", "median ms",
             "min ms", "rounds", "status");
  for (const Row& r : rows_) {
    const std::string med = r.seconds.empty() ? "-" : fmt::format("{:.4f}", gbcuda_cli::median(r.seconds) * 1e3);
    const std::string mn =
        r.seconds.empty() ? "-" : fmt::format("{:.4f}", *std::min_element(r.seconds.begin(), r.seconds.end()) * 1e3);
    fmt::print("{:<14} {:<20} {:<14} {:<6} {:>10} {:>10} {:>7}  {}{}\n", r.graph, r.which, r.impl, r.device, med, mn,
               r.rounds ? std::to_string(r.rounds) : "-", r.status, r.note.empty() ? "" : " (" + r.note + ")");
  }
  return failed_ ? gbcuda_cli::kExitFailure : gbcuda_cli::kExitOk;
}

Json Bench::to_json(const std::string& command_line) const {
  Json j;
  j["command_line"] = command_line;
  j["gbcuda_version"] = GBCUDA_VERSION_STRING;
  j["device"] = gbcuda::backend_description(device_);
  j["graphblas"] = fmt::format("SuiteSparse:GraphBLAS {}.{}.{}", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
                               GxB_IMPLEMENTATION_SUB);
  j["settings"] = {{"repeat", o_.repeat}, {"warmup", o_.warmup}, {"seed", o_.seed}, {"cases", o_.cases}};
  Json cases = Json::array();
  for (const Row& r : rows_) {
    Json c = {{"graph", r.graph},     {"case", r.which},    {"impl", r.impl},     {"device", r.device},
              {"seconds", r.seconds}, {"rounds", r.rounds}, {"status", r.status}, {"note", r.note}};
    c["seconds_median"] = r.seconds.empty() ? Json(nullptr) : Json(gbcuda_cli::median(r.seconds));
    c["seconds_min"] = r.seconds.empty() ? Json(nullptr) : Json(*std::min_element(r.seconds.begin(), r.seconds.end()));
    cases.push_back(c);
  }
  j["cases"] = cases;
  return j;
}

int run(const Options& o, const std::string& command_line) {
  if (!o.json_file.empty()) gbcuda::check_output_path(o.json_file);  // refuse before the work
  std::vector<std::string> graphs = o.graphs;
  if (o.preset == "standard") graphs.insert(graphs.end(), kPresetStandard.begin(), kPresetStandard.end());
  if (o.preset == "small") graphs.insert(graphs.end(), kPresetSmall.begin(), kPresetSmall.end());
  if (graphs.empty() && o.no_latency) throw gbcuda_cli::UsageError{"nothing to run: give GRAPH or --preset"};
  if (o.cases != "all") {
    std::string rest = o.cases + ",";
    for (std::size_t p; (p = rest.find(',')) != std::string::npos; rest.erase(0, p + 1)) {
      const std::string c = rest.substr(0, p);
      if (std::find(kCases.begin(), kCases.end(), c) == kCases.end())
        throw gbcuda_cli::UsageError{
            fmt::format("unknown case '{}' (cases: spmv-f32,spmv-f64,sssp,pagerank,cc,tc,mxm-f64)", c)};
    }
  }
  const Backend device = gbcuda::resolve_device(gbcuda::parse_device(o.device));
  GBREF_CALL(GrB_init(GrB_NONBLOCKING));
  GBREF_CALL(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, int(std::max(1u, std::thread::hardware_concurrency()))));
  Bench bench(o, device);
  for (const std::string& g : graphs) bench.run_graph(g);
  if (!o.no_latency) bench.run_latency();
  const int rc = bench.print_table();
  if (!o.json_file.empty())
    gbcuda::write_file_atomically(o.json_file,
                                  [&](std::ostream& out) { out << bench.to_json(command_line).dump(2) << "\n"; });
  GrB_finalize();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "algebra_bench: gbcuda's algebra (SpMV, Bellman-Ford, PageRank, connected components, triangles, small-op "
      "latency) "
      "beside SuiteSparse:GraphBLAS on all cores and cuSPARSE's SpMV, answers checked against GraphBLAS's."};
  app.name("algebra_bench");
  Options o;
  app.add_option("GRAPH", o.graphs,
                 "Graph files (any format bfs_spmv reads) or generator specs (kron:S:E, urand:S:K, ...)");
  app.add_option("--preset", o.preset, "standard: kron:22:16 urand:22:16 kron:18:16; small: kron:14:16 urand:14:16")
      ->type_name("standard|small")
      ->check(CLI::IsMember({"standard", "small"}).description(""));
  app.add_option("--cases", o.cases,
                 "Comma-separated: spmv-f32,spmv-f64,sssp,pagerank,cc,tc,mxm-f64,ewise-f64 (default all: every "
                 "case but mxm-f64, A * A, and ewise-f64, A + A shifted a column, which run only when named)");
  app.add_option("--tc-max-entries", o.tc_max_entries,
                 "Count triangles only on graphs of at most N stored entries (default 2^26)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", o.repeat, "Timed runs per case (default 5)")->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", o.warmup, "Untimed runs per case first (default 1)")->check(CLI::Range(0, 1000000));
  app.add_option("--device", o.device, "Where gbcuda runs: cuda, host, or auto (the GPU when usable)")
      ->check(CLI::IsMember({"auto", "cuda", "host"}));
  app.add_option("--json", o.json_file, "Write every number to FILE (whole or not at all)")->type_name("FILE");
  app.add_flag("--no-graphblas", o.no_graphblas, "Leave out SuiteSparse:GraphBLAS (and the answer checks)");
  app.add_flag("--no-host", o.no_host, "Leave out the gbcuda host backend when gbcuda runs on the GPU");
  app.add_flag("--no-latency", o.no_latency, "Leave out the small-operation latencies");
  app.add_flag("--host-driven-loops", o.host_driven_loops,
               "Run the examples' device loops (sssp, pagerank) as plain host-driven loops, for comparison");
  app.add_option("--seed", o.seed, "Seed of the edge weights (default 1)");
  gbcuda_cli::add_reader_flags(app, o.read);  // GRAPH files only
  app.footer(
      "Times: the median and minimum of --repeat runs after --warmup; gbcuda on the GPU and cuSPARSE with CUDA events "
      "on the library stream, the CPU runs with a steady clock (GraphBLAS: its loop only, the matrix imported "
      "before). Weights: 1 + (p * 2654435761 + seed) % 255 for stored entry p. PageRank runs 20 iterations; SSSP "
      "starts at the vertex of most out-edges; components and triangles use A + A' when A is not symmetric. Exit 1 "
      "when an "
      "answer differs from GraphBLAS's (status FAILED), 2 for usage errors.");
  if (const auto stop = gbcuda_cli::parse_arguments(app, argc, argv, "algebra_bench")) return *stop;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  return gbcuda_cli::run_reporting_errors("algebra_bench", [&] { return run(o, command_line); });
}
