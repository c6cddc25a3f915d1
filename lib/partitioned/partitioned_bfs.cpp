// bfs_partitioned (partitioned.hpp): one host thread a part; every part builds its piece of the
// graph, then all run the same level loop on global counts, exchanging the frontier bitmap.
#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "gbcuda/context.hpp"
#include "gbcuda/partitioned.hpp"
#include "partitioned/group.hpp"
#include "partitioned/part.hpp"

#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gbcuda {

Index partition_block(Index n, int parts) {
  if (parts < 1) throw Error(Status::InvalidValue, "a partition needs at least 1 part, not " + std::to_string(parts));
  const Index per = (n + parts - 1) / parts;
  return (per + 31) / 32 * 32;
}

Index partition_begin(Index n, int parts, int p) {
  if (p < 0 || p > parts)
    throw Error(Status::InvalidIndex, "part " + std::to_string(p) + " of " + std::to_string(parts));
  return std::min(n, Index(p) * partition_block(n, parts));
}

namespace detail::partitioned {
namespace {

using Clock = std::chrono::steady_clock;

void set_device(const Communicator& comm) {
#if GBCUDA_HAVE_CUDA
  if (comm.device() >= 0 && cudaSetDevice(comm.device()) != cudaSuccess)
    throw Error(Status::CudaError, "cudaSetDevice(" + std::to_string(comm.device()) + ") failed");
#else
  (void)comm;
#endif
}

// Runs f(rank) on one thread per rank, each on its rank's device; a rank that throws aborts the
// group (the others' collectives then throw PeerFailed). Rethrows a rank's own error first.
template <class F>
void on_every_rank(const std::vector<std::unique_ptr<Communicator>>& comms, F f) {
  std::vector<std::exception_ptr> errors(comms.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t p = 0; p < comms.size(); ++p)
      threads.emplace_back([&, p] {
        try {
          set_device(*comms[p]);
          f(int(p));
        } catch (...) {
          errors[p] = std::current_exception();
          comms[p]->abort();
        }
      });
  }
  for (const std::exception_ptr& e : errors)  // a rank's own failure, not another's echo of it
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const PeerFailed&) {
      }
    }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace
}  // namespace detail::partitioned

struct PartitionedGraph::Impl {
  Index n = 0;
  Offset nnz = 0;
  Backend where = Backend::Host;
  std::vector<std::unique_ptr<Communicator>> comms;
  std::vector<detail::partitioned::PartGraph> parts;
  std::vector<Index> source_degree;  // read for the source only: the whole graph's out-degrees
  bool built_on_gpus = false;

  ~Impl() {
    if (where != Backend::Cuda || parts.empty()) return;
    try {  // each part's memory goes back on its own device
      detail::partitioned::on_every_rank(comms, [&](int p) { parts[std::size_t(p)] = {}; });
    } catch (...) {
    }
  }
};

namespace detail::partitioned {
namespace {
// Whether the parts are built on their GPUs from A's copy in GPU memory (a generated graph's, or
// one a search already put there; build_part_on_device) rather than on the host: when the parts
// live on GPUs, A's structure is symmetric (its rows are the transpose's the parts read; a
// directed graph's transpose is built on the host as before), A is in GPU memory, every other
// part's GPU can read A's (peer access: the library's memory pool then grants it), and A's GPU
// has room beside it for the builds of the parts it holds.
template <class T>
bool on_device_build(const Matrix<T>& A, bool symmetric, int parts, Backend where,
                     const std::vector<std::unique_ptr<Communicator>>& comms) {
#if GBCUDA_HAVE_CUDA
  if (where != Backend::Cuda || !symmetric || A.device_bytes() == 0) return false;
  cudaPointerAttributes at{};
  int current = 0;
  if (cudaPointerGetAttributes(&at, A.csr(Backend::Cuda).row_ptr.data()) != cudaSuccess ||
      at.type != cudaMemoryTypeDevice || cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  const int home = at.device;
  std::size_t parts_home = 0;
  for (const auto& c : comms) {
    const int d = c->device() < 0 ? current : c->device();
    if (d == home) {
      ++parts_home;
      continue;
    }
    // A's arrays come from home's memory pool: another GPU copies from them only once the pool
    // grants it access, and only where the two GPUs are peers.
    int peer = 0;
    cudaMemPool_t pool = nullptr;
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = d;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    if (cudaDeviceCanAccessPeer(&peer, d, home) != cudaSuccess || !peer ||
        cudaDeviceGetDefaultMemPool(&pool, home) != cudaSuccess ||
        cudaMemPoolSetAccess(pool, &access, 1) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
  }
  if (cudaSetDevice(home) != cudaSuccess) return false;
  const std::size_t free_bytes = device_memory_info().free_bytes;
  cudaSetDevice(current);
  const Offset share = A.nvals() / parts + A.nvals() / 100 + 1;  // a part's entries, with slack
  return parts_home * device_build_bytes(A.nrows(), share) < free_bytes;
#else
  (void)A, (void)symmetric, (void)parts, (void)where, (void)comms;
  return false;
#endif
}
}  // namespace
}  // namespace detail::partitioned

template <class T>
PartitionedGraph::PartitionedGraph(const Matrix<T>& A, const PartitionedBfsOptions& o)
    : impl_(std::make_unique<Impl>()) {
  using namespace detail::partitioned;
  detail::check_bfs_arguments(A, 0);
  if (o.transport == Transport::Nccl && o.device == Device::Host)
    throw Error(Status::InvalidValue, "the nccl transport runs on GPUs: not with device host");
  Impl& m = *impl_;
  m.where = o.transport == Transport::Nccl ? Backend::Cuda : resolve_device(o.device);
  m.comms = make_communicators(o.transport, o.parts, m.where, o.gpus);
  m.n = A.nrows();
  m.nnz = A.nvals();
  m.source_degree = A.out_degrees();
  // A structure known to be symmetric (generated undirected graphs) is its own transpose: none is
  // computed, and one CSR is read instead of two.
  const bool symmetric = A.known_symmetric_structure().value_or(false);
  const Csr<T>* rows = nullptr;
  const Csr<T>* in_rows = nullptr;
  m.built_on_gpus = on_device_build(A, symmetric, o.parts, m.where, m.comms);
  if (m.built_on_gpus) {
    in_rows = &A.csr(Backend::Cuda);
    detail::synchronize(Backend::Cuda);  // the parts' threads read it on their own streams
  } else {
    rows = &A.csr(Backend::Host);
    in_rows = symmetric ? rows : &A.transpose().csr(Backend::Host);
  }
  m.parts.resize(std::size_t(o.parts));
  on_every_rank(m.comms, [&](int p) {
    Communicator& comm = *m.comms[std::size_t(p)];
    std::uint64_t failed = 1;
    try {
#if GBCUDA_HAVE_CUDA
      m.parts[std::size_t(p)] = rows ? build_part(*rows, *in_rows, o.parts, p, m.where)
                                     : build_part_on_device(in_rows->row_ptr.data(), in_rows->col_idx.data(), m.n,
                                                            m.source_degree, o.parts, p);
#else
      m.parts[std::size_t(p)] = build_part(*rows, *in_rows, o.parts, p, m.where);  // never on GPUs
#endif
      detail::synchronize(m.where);
      failed = 0;
    } catch (...) {
      comm.allreduce_sum(&failed, 1);  // the others learn of it, then this rank reports its error
      throw;
    }
    comm.allreduce_sum(&failed, 1);  // every part is built, or none goes on
    if (failed != 0) throw PeerFailed();
  });
}

PartitionedGraph::~PartitionedGraph() = default;
PartitionedGraph::PartitionedGraph(PartitionedGraph&&) noexcept = default;
PartitionedGraph& PartitionedGraph::operator=(PartitionedGraph&&) noexcept = default;
Index PartitionedGraph::nrows() const { return impl_->n; }
int PartitionedGraph::parts() const { return int(impl_->parts.size()); }
Backend PartitionedGraph::backend() const { return impl_->where; }
bool PartitionedGraph::built_on_gpus() const { return impl_->built_on_gpus; }

BfsResult PartitionedGraph::bfs(Index source, const PartitionedBfsOptions& o) const {
  using namespace detail::partitioned;
  using Clock = std::chrono::steady_clock;
  const Impl& m = *impl_;
  if (source < 0 || source >= m.n)
    throw Error(Status::InvalidIndex,
                "source vertex " + std::to_string(source) + " is out of range [0, " + std::to_string(m.n - 1) + "]");
  BfsResult r;
  r.source = source;
  r.backend = m.where;
  r.level.assign(std::size_t(m.n), -1);
  std::vector<Vid> parent(o.compute_parents ? std::size_t(m.n) : 0);
  const int nparts = parts();
  std::vector<Clock::time_point> starts(static_cast<std::size_t>(nparts)), ends(static_cast<std::size_t>(nparts));
  std::uint64_t reached = 0, edges = 0;
  int levels = 0;
  const double alpha = o.alpha > 0 ? o.alpha : 15.0, beta = o.beta > 0 ? o.beta : 18.0;
  const Index source_degree = m.source_degree[std::size_t(source)];
  // Level lvl is enqueued before the host waits for level lvl - 1's report: a part's GPU always
  // has the next level queued. Every rank sees the same summed counts, so all take the same
  // direction (on the device, begin_level) and stop together; the level enqueued after the one
  // that found nothing starts on an empty frontier and does nothing but its exchange.
  on_every_rank(m.comms, [&](int p) {
    Communicator& comm = *m.comms[std::size_t(p)];
    const PartGraph& g = m.parts[std::size_t(p)];
    PartState s = make_state(g, nparts, source, source_degree, m.nnz, o.compute_parents, m.where);
    LevelReports reports(m.where);
    detail::synchronize(m.where);
    std::uint64_t ready = 0;
    comm.allreduce_sum(&ready, 1);  // a barrier: the search starts together
    starts[std::size_t(p)] = Clock::now();
    reports.start();
    std::uint64_t found = 1, traversed = std::uint64_t(source_degree);
    int lvl = 1;
    for (;; ++lvl) {
#if GBCUDA_HAVE_CUDA
      if (m.where == Backend::Cuda) {
        cuda_level(g, s, lvl, alpha, beta);
      } else {
        host_level(g, s, lvl, alpha, beta);
      }
#else
      host_level(g, s, lvl, alpha, beta);
#endif
      LoopState* loop = loop_of(s, lvl);  // counts and sums: 64-bit unsigned, as the exchange's
      comm.allgather_and_sum(next_of(s, lvl), s.frontier.data(), std::size_t(g.slice_words),
                             reinterpret_cast<const std::uint64_t*>(loop->counts),
                             reinterpret_cast<std::uint64_t*>(loop->sums), kCounts);
      reports.copy(loop, lvl);
      if (lvl == 1) continue;
      const LoopState& done = reports.wait(lvl - 1);  // level lvl - 1, while level lvl runs
      if (p == 0 && o.collect_stats) {
        BfsLevelStats l;
        l.level = lvl - 1;
        l.frontier_size = Index(done.at.size);
        l.edges_examined = Index(done.sums[2]);
        l.direction = done.at.pull ? Direction::Pull : Direction::Push;
        l.seconds = reports.seconds(lvl - 1);
        r.levels.push_back(l);
      }
      found += done.sums[0];
      traversed += done.sums[1];
      if (done.sums[0] == 0) break;  // level lvl - 1 found nothing: level lvl has nothing to do
    }
    detail::synchronize(m.where);  // the level enqueued after the stop
    ends[std::size_t(p)] = Clock::now();
    std::uint64_t closing = 0;
    comm.allreduce_sum(&closing, 1);  // a barrier that throws if another part failed in the loop
    if (p == 0) {
      reached = found;
      edges = traversed;
      levels = lvl - 1;  // the levels 0 .. lvl - 2, and level lvl - 1 found nothing
    }
    if (g.own() > 0) {  // the parts' ranges of the result are disjoint
      detail::copy_bytes(r.level.data() + g.begin, Backend::Host, s.level.data(), m.where,
                         std::size_t(g.own()) * sizeof(std::int32_t));
      if (o.compute_parents)
        detail::copy_bytes(parent.data() + g.begin, Backend::Host, s.parent.data(), m.where,
                           std::size_t(g.own()) * sizeof(Vid));
    }
  });
  r.parent.assign(parent.begin(), parent.end());  // Vid to the result's 64-bit ids; empty without parents
  r.seconds = std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) -
                                            *std::min_element(starts.begin(), starts.end()))
                  .count();
  r.vertices_reached = Index(reached);
  r.edges_traversed = Index(edges);
  r.num_levels = levels;
  return r;
}

template <class T>
BfsResult bfs_partitioned(const Matrix<T>& A, Index source, const PartitionedBfsOptions& o) {
  detail::check_bfs_arguments(A, source);
  return PartitionedGraph(A, o).bfs(source, o);
}

#define GBCUDA_INSTANTIATE_PARTITIONED(T)                                                      \
  template PartitionedGraph::PartitionedGraph(const Matrix<T>&, const PartitionedBfsOptions&); \
  template BfsResult bfs_partitioned<T>(const Matrix<T>&, Index, const PartitionedBfsOptions&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_PARTITIONED)
#undef GBCUDA_INSTANTIATE_PARTITIONED

}  // namespace gbcuda
