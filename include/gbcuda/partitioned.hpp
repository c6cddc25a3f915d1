#pragma once
// Breadth-first search over a graph split into P parts that exchange the frontier through a
// Communicator: one GPU a part over NCCL, or P parts on one GPU or on the host through a loopback
// communicator (the same algorithm, for tests and machines with one GPU).
//
// The partition is 1D, by destination (docs/design/partitioned.md says why): part p owns the
// vertices [partition_begin(n, P, p), partition_begin(n, P, p + 1)), blocks of multiples of 32
// (the last may be shorter or empty), and stores the edges into them twice: by destination (their
// in-edges, for the pull) and by source (for every vertex u, the out-edges of u that land in the
// block, for the push). A level needs the whole frontier on every part, one allgather of a bitmap
// (n/8 bytes), and three summed counts; every update of a level is local to its part.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda {

// Moves data between the ranks (parts) of a partitioned algorithm. Each rank is driven by one
// host thread; every rank calls the same collectives in the same order, and each call returns to
// its thread when the rank's result is complete. Buffers live in memory(): device memory of
// device() for Backend::Cuda, host memory for Backend::Host.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Backend memory() const = 0;
  // The GPU of this rank's work and buffers (-1 on the host). The thread calling this rank's
  // collectives must have made it current (cudaSetDevice) before its first gbcuda call.
  virtual int device() const = 0;
  // recv[r * words + i] = send[i] of rank r, for every rank r (recv holds size() * words words).
  virtual void allgather(const std::uint32_t* send, std::uint32_t* recv, std::size_t words) = 0;
  // values[i] = the sum over the ranks of their values[i]; host memory.
  virtual void allreduce_sum(std::uint64_t* values, int count) = 0;
  // Both at once, every buffer in memory(): recv as allgather(send, recv, words), and sum_out[i] =
  // the sum over the ranks of sum_in[i] (count values). On a GPU the results may be only enqueued
  // on the calling thread's stream (library_stream()): work enqueued there later sees them, and
  // the host after a wait on that stream. The default calls allgather and allreduce_sum (through
  // host memory) and returns with the results complete; NCCL enqueues both as one group without
  // waiting.
  virtual void allgather_and_sum(const std::uint32_t* send, std::uint32_t* recv, std::size_t words,
                                 const std::uint64_t* sum_in, std::uint64_t* sum_out, int count);
  // This rank has failed: the other ranks' pending and later collectives throw Error instead of
  // waiting for it (NCCL: every communicator of the group is aborted).
  virtual void abort() noexcept = 0;
};

// How the ranks of one process talk.
//   Loopback  through this process's memory: on the host, or every rank on the current GPU.
//   Nccl      NCCL, rank r on GPU gpus[r] (NVLink or PCIe between the GPUs of one host). Needs a
//             build with NCCL (nccl_available()).
enum class Transport { Loopback, Nccl };
const char* to_string(Transport t);
// Parses "loopback" or "nccl"; throws Error(InvalidValue) otherwise.
Transport parse_transport(const std::string& name);
// True when this build has the NCCL transport (found beside the CUDA toolkit at configure time).
bool nccl_available();

// The `parts` communicators of one group, rank r at index r, each for its own host thread.
// Loopback: `where` is the memory of every rank (Cuda: the current device). Nccl: `where` must
// be Cuda; `gpus` names the GPU of each rank (empty: 0, 1, ..., parts - 1) and the GPUs must be
// distinct and visible. Throws Error(InvalidValue) for parts < 1 or a bad GPU list,
// Error(NoDevice) when the GPUs are missing, Error(NotImplemented) for Nccl in a build without it.
std::vector<std::unique_ptr<Communicator>> make_communicators(Transport transport, int parts, Backend where,
                                                              const std::vector<int>& gpus = {});

// The vertices of each part of n split into `parts`: ceil(n / parts) rounded up to a multiple of
// 32 (the last part takes the rest, possibly none); and the first vertex of part p (0 <= p <=
// parts), min(n, p * partition_block(n, parts)).
Index partition_block(Index n, int parts);
Index partition_begin(Index n, int parts, int p);

struct PartitionedBfsOptions {
  // Where the parts live (PartitionedGraph's constructor).
  int parts = 2;                              // P >= 1
  Transport transport = Transport::Loopback;  // see Transport
  Device device = Device::Auto;               // Loopback: host or GPU (Nccl: always GPUs)
  std::vector<int> gpus;                      // Nccl: the GPU of each part (empty: 0 .. P-1)
  // How a search goes (PartitionedGraph::bfs). The direction rule on the whole graph's counts
  // (Beamer's): pull once the frontier's out-edges exceed the unexplored edges / alpha while it
  // grows; push again once it has shrunk below n / beta. 0: Beamer's 15 and 18.
  double alpha = 0.0;
  double beta = 0.0;
  bool collect_stats = true;     // BfsResult::levels (each level's time from the part's GPU clock)
  bool compute_parents = false;  // BfsResult::parent: each reached vertex's parent one level up
};

// A graph split into parts, each in its part's memory (on its GPU), searched many times. The parts
// are cut from the whole graph's CSR and its transpose (none when the structure is known to be
// symmetric) on the host, one thread a part. One search
// at a time (the parts' communicators are shared by every search).
class PartitionedGraph {
 public:
  // Throws as bfs() does for a matrix that is not square or empty, and as make_communicators()
  // for bad parts or GPUs; a part that cannot be built (out of memory) is an error for all.
  // Parts on GPUs are built on their GPUs when A's structure is known to be symmetric and A is
  // already in GPU memory with room beside it (its slices are copied GPU to GPU); otherwise on
  // the host, from A's host copy (and its transpose's), then copied to each part's memory.
  template <class T>
  PartitionedGraph(const Matrix<T>& A, const PartitionedBfsOptions& options = {});
  ~PartitionedGraph();
  PartitionedGraph(PartitionedGraph&&) noexcept;
  PartitionedGraph& operator=(PartitionedGraph&&) noexcept;

  Index nrows() const;
  int parts() const;
  Backend backend() const;
  bool built_on_gpus() const;  // whether the parts were cut on their GPUs (see the constructor)

  // BFS from `source`: fills level, source, vertices_reached, num_levels, edges_traversed,
  // backend, seconds (from the parts' first level to the last part's end) and, with
  // options.collect_stats, levels (the direction of each; kernel Auto); with
  // options.compute_parents, parent (the in-neighbour a pull found first, or the frontier vertex
  // whose push claimed the vertex: a valid BFS tree, not always the one-part search's). Only the
  // search options (alpha, beta, collect_stats, compute_parents) are read. Error(InvalidIndex)
  // for a bad source.
  BfsResult bfs(Index source, const PartitionedBfsOptions& options = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One search: PartitionedGraph(A, options).bfs(source, options).
template <class T>
BfsResult bfs_partitioned(const Matrix<T>& A, Index source, const PartitionedBfsOptions& options = {});

}  // namespace gbcuda
