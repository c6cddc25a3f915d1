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

  ~Impl() {
    if (where != Backend::Cuda || parts.empty()) return;
    try {  // each part's memory goes back on its own device
      detail::partitioned::on_every_rank(comms, [&](int p) { parts[std::size_t(p)] = {}; });
    } catch (...) {
    }
  }
};

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
  const Csr<T>& rows = A.csr(Backend::Host);
  const Csr<T>& in_rows = A.transpose().csr(Backend::Host);
  m.parts.resize(std::size_t(o.parts));
  on_every_rank(m.comms, [&](int p) {
    Communicator& comm = *m.comms[std::size_t(p)];
    std::uint64_t failed = 1;
    try {
      m.parts[std::size_t(p)] = build_part(rows, in_rows, o.parts, p, m.where);
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
  const int nparts = parts();
  std::vector<Clock::time_point> starts(static_cast<std::size_t>(nparts)), ends(static_cast<std::size_t>(nparts));
  std::uint64_t reached = 0, edges = 0;
  int levels = 0;
  const double alpha = o.alpha > 0 ? o.alpha : 15.0, beta = o.beta > 0 ? o.beta : 18.0;
  // Every rank sees the same global counts, so all take the same direction and stop together.
  on_every_rank(m.comms, [&](int p) {
    Communicator& comm = *m.comms[std::size_t(p)];
    const PartGraph& g = m.parts[std::size_t(p)];
    PartState s = make_state(g, nparts, source, m.where);
    detail::synchronize(m.where);
    std::uint64_t frontier[2] = {1, std::uint64_t(m.source_degree[std::size_t(source)])};  // size, out-edges
    std::uint64_t total[2] = {frontier[0], frontier[1]};
    double unexplored = double(m.nnz);
    std::uint64_t prev_size = 0;
    bool pulling = false;
    comm.allreduce_sum(&prev_size, 1);  // a barrier: the search starts together
    starts[std::size_t(p)] = Clock::now();
    int lvl = 1;
    for (; frontier[0] > 0; ++lvl) {
      const auto t0 = Clock::now();
      const bool growing = frontier[0] > prev_size;
      if (!pulling && growing && double(frontier[1]) > unexplored / alpha) pulling = true;
      else if (pulling && !growing && double(frontier[0]) < double(m.n) / beta) pulling = false;
      ull counts[kCounts];
#if GBCUDA_HAVE_CUDA
      if (m.where == Backend::Cuda) cuda_level(g, s, pulling, lvl, counts);
      else host_level(g, s, pulling, lvl, counts);
#else
      host_level(g, s, pulling, lvl, counts);
#endif
      comm.allgather(s.next.data(), s.frontier.data(), std::size_t(g.slice_words));
      std::uint64_t sums[kCounts] = {counts[0], counts[1], counts[2]};
      comm.allreduce_sum(sums, kCounts);
      if (p == 0 && o.collect_stats) {
        BfsLevelStats l;
        l.level = lvl;
        l.frontier_size = Index(frontier[0]);
        l.edges_examined = Index(sums[2]);
        l.direction = pulling ? Direction::Pull : Direction::Push;
        l.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        r.levels.push_back(l);
      }
      unexplored -= double(frontier[1]);
      prev_size = frontier[0];
      frontier[0] = sums[0];
      frontier[1] = sums[1];
      total[0] += sums[0];
      total[1] += sums[1];
    }
    ends[std::size_t(p)] = Clock::now();
    if (p == 0) {
      reached = total[0];
      edges = total[1];
      levels = lvl - 1;  // the last step found nothing
    }
    if (g.own() > 0)  // the parts' ranges of the result are disjoint
      detail::copy_bytes(r.level.data() + g.begin, Backend::Host, s.level.data(), m.where,
                         std::size_t(g.own()) * sizeof(std::int32_t));
  });
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
