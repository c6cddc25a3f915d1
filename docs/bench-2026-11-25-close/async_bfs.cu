// Prototype (experiment, not the library): a BFS without level barriers. Label-correcting:
// a vertex's level only falls (atomicMin), and every fall queues the vertex again, so the levels
// end exact; one global FIFO queue, warps take up to 32 entries at a time, idle warps back off.
// Measures whether a mesh's 4,093 levels cost less without a grid barrier and a level's chain.
//   async_bfs grid W H [blocks_per_sm threads max_sleep_ns]   |   async_bfs urand N DEG ...
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

struct Graph {
  int n = 0;
  std::vector<int64_t> rowptr;
  std::vector<int> cols;
};

static Graph make_grid(int w, int h) {
  Graph g;
  g.n = w * h;
  g.rowptr.assign(g.n + 1, 0);
  for (int v = 0; v < g.n; ++v) {
    int x = v % w, y = v / w;
    if (y > 0) g.cols.push_back(v - w);
    if (x > 0) g.cols.push_back(v - 1);
    if (x + 1 < w) g.cols.push_back(v + 1);
    if (y + 1 < h) g.cols.push_back(v + w);
    g.rowptr[v + 1] = static_cast<int64_t>(g.cols.size());
  }
  return g;
}

static Graph make_urand(int n, int deg) {  // undirected random, deg/2 edges drawn per vertex
  std::mt19937_64 rng(42);
  std::vector<std::vector<int>> adj(n);
  for (int v = 0; v < n; ++v)
    for (int k = 0; k < deg / 2; ++k) {
      int u = static_cast<int>(rng() % n);
      adj[v].push_back(u);
      adj[u].push_back(v);
    }
  Graph g;
  g.n = n;
  g.rowptr.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) {
    g.cols.insert(g.cols.end(), adj[v].begin(), adj[v].end());
    g.rowptr[v + 1] = static_cast<int64_t>(g.cols.size());
  }
  return g;
}

static std::vector<int> host_bfs(const Graph& g, int s) {
  std::vector<int> lv(g.n, -1), q{s};
  lv[s] = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    int v = q[i];
    for (int64_t p = g.rowptr[v]; p < g.rowptr[v + 1]; ++p)
      if (lv[g.cols[p]] < 0) lv[g.cols[p]] = lv[v] + 1, q.push_back(g.cols[p]);
  }
  return lv;
}

constexpr unsigned long long kEmpty = ~0ull;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kChunk = 4;  // edges a lane examines per round

struct Queue {
  unsigned long long* slot;  // (level << 32) | vertex, kEmpty until written
  unsigned long long cap;
  unsigned long long* head;
  unsigned long long* tail;
  long long* pending;  // queued entries not yet finished (may dip transiently, see below)
  int* overflow;
  unsigned long long* work;  // entries processed (stats)
};

__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

// pending += pushed - taken, once per batch, after the pushes: a consumer may finish an entry
// before its producer counted it, so pending can read <= 0 while work is queued. An idle warp
// that sees it leaves early, which only costs parallelism: the producer loops again and finds
// its entry (or the warp that took it is still running), so the last entry is never stranded.
__global__ void __launch_bounds__(1024) async_bfs(const int64_t* __restrict__ rowptr,
                                                  const int* __restrict__ cols, int* level, Queue q,
                                                  int max_sleep) {
  const int lane = threadIdx.x & 31;
  for (;;) {
    unsigned long long h = 0;
    int n = 0;
    if (lane == 0) {
      int sleep = 32;
      for (;;) {
        unsigned long long t = ld_volatile(q.tail), hh = ld_volatile(q.head);
        if (t > hh) {
          unsigned long long take = t - hh < 32 ? t - hh : 32;
          if (atomicCAS(q.head, hh, hh + take) == hh) {
            h = hh;
            n = static_cast<int>(take);
            break;
          }
        } else {
          if (*reinterpret_cast<volatile long long*>(q.pending) <= 0 || *reinterpret_cast<volatile int*>(q.overflow)) {
            n = -1;
            break;
          }
          __nanosleep(sleep);
          sleep = sleep * 2 < max_sleep ? sleep * 2 : max_sleep;
        }
      }
    }
    n = __shfl_sync(kFull, n, 0);
    h = __shfl_sync(kFull, h, 0);
    if (n < 0) return;
    int v = -1, lv = 0;
    if (lane < n) {
      unsigned long long e;
      while ((e = ld_volatile(q.slot + h + lane)) == kEmpty) {
      }
      v = static_cast<int>(e & 0xffffffffu);
      lv = static_cast<int>(e >> 32);
      if (*reinterpret_cast<volatile int*>(level + v) < lv) v = -1;  // a lower level queued it again
    }
    int64_t p = 0, end = 0;
    if (v >= 0) p = rowptr[v], end = rowptr[v + 1];
    long long pushed = 0;
    while (__any_sync(kFull, p < end)) {
      int found[kChunk];
      int nf = 0;
      int w[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k) w[k] = p + k < end ? cols[p + k] : -1;
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        if (w[k] >= 0 && atomicMin(level + w[k], lv + 1) > lv + 1) found[nf++] = w[k];
      p += kChunk;
      int scan = nf;
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        int o = __shfl_up_sync(kFull, scan, d);
        if (lane >= d) scan += o;
      }
      int total = __shfl_sync(kFull, scan, 31);
      if (total == 0) continue;
      unsigned long long base = 0;
      if (lane == 0) base = atomicAdd(q.tail, static_cast<unsigned long long>(total));
      base = __shfl_sync(kFull, base, 0);
      if (base + total > q.cap) {
        if (lane == 0) atomicExch(q.overflow, 1);
        return;
      }
      unsigned long long at = base + scan - nf;
      for (int k = 0; k < nf; ++k)
        *reinterpret_cast<volatile unsigned long long*>(q.slot + at + k) =
            (static_cast<unsigned long long>(lv + 1) << 32) | static_cast<unsigned>(found[k]);
      pushed += total;
    }
    if (lane == 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(q.pending), static_cast<unsigned long long>(pushed - n));
      atomicAdd(q.work, static_cast<unsigned long long>(n));
    }
  }
}


// v2: a warp keeps up to `keep` of its finds in its own ring in shared memory and works them
// next (no queue round trip on the level-to-level chain); only the surplus goes to the global
// queue, where idle warps take it. pending counts both.
constexpr int kRing = 64;
__global__ void __launch_bounds__(1024) async_bfs_local(const int64_t* __restrict__ rowptr,
                                                        const int* __restrict__ cols, int* level, Queue q,
                                                        int max_sleep, int keep) {
  extern __shared__ unsigned long long rings[];
  const int lane = threadIdx.x & 31;
  unsigned long long* ring = rings + (threadIdx.x >> 5) * kRing;
  int lhead = 0, lcount = 0;
  for (;;) {
    unsigned long long h = 0;
    int n = 0;
    bool local = lcount > 0;
    if (local) {
      n = lcount < 32 ? lcount : 32;
    } else {
      if (lane == 0) {
        int sleep = 32;
        for (;;) {
          unsigned long long t = ld_volatile(q.tail), hh = ld_volatile(q.head);
          if (t > hh) {
            unsigned long long take = t - hh < 32 ? t - hh : 32;
            if (atomicCAS(q.head, hh, hh + take) == hh) {
              h = hh;
              n = static_cast<int>(take);
              break;
            }
          } else {
            if (*reinterpret_cast<volatile long long*>(q.pending) <= 0 ||
                *reinterpret_cast<volatile int*>(q.overflow)) {
              n = -1;
              break;
            }
            __nanosleep(sleep);
            sleep = sleep * 2 < max_sleep ? sleep * 2 : max_sleep;
          }
        }
      }
      n = __shfl_sync(kFull, n, 0);
      h = __shfl_sync(kFull, h, 0);
      if (n < 0) return;
    }
    int v = -1, lv = 0;
    if (lane < n) {
      unsigned long long e;
      if (local) {
        e = ring[(lhead + lane) % kRing];
      } else {
        while ((e = ld_volatile(q.slot + h + lane)) == kEmpty) {
        }
      }
      v = static_cast<int>(e & 0xffffffffu);
      lv = static_cast<int>(e >> 32);
    }
    if (local) lhead = (lhead + n) % kRing, lcount -= n;
    __syncwarp();
    int64_t p = 0, end = 0;
    if (v >= 0) {
      int now = *reinterpret_cast<volatile int*>(level + v);  // independent of the row loads
      p = rowptr[v], end = rowptr[v + 1];
      if (now < lv) p = end;  // a lower level queued it again
    }
    long long pushed = 0;
    while (__any_sync(kFull, p < end)) {
      int found[kChunk];
      int nf = 0;
      int w[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k) w[k] = p + k < end ? cols[p + k] : -1;
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        if (w[k] >= 0 && atomicMin(level + w[k], lv + 1) > lv + 1) found[nf++] = w[k];
      p += kChunk;
      int scan = nf;
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        int o = __shfl_up_sync(kFull, scan, d);
        if (lane >= d) scan += o;
      }
      int total = __shfl_sync(kFull, scan, 31);
      if (total == 0) continue;
      int room = keep - lcount;
      if (room < 0) room = 0;
      int to_ring = total < room ? total : room;
      unsigned long long base = 0;
      if (total > to_ring) {
        if (lane == 0) base = atomicAdd(q.tail, static_cast<unsigned long long>(total - to_ring));
        base = __shfl_sync(kFull, base, 0);
        if (base + (total - to_ring) > q.cap) {
          if (lane == 0) atomicExch(q.overflow, 1);
          return;
        }
      }
      int at = scan - nf;
      for (int k = 0; k < nf; ++k, ++at) {
        unsigned long long e = (static_cast<unsigned long long>(lv + 1) << 32) | static_cast<unsigned>(found[k]);
        if (at < to_ring)
          ring[(lhead + lcount + at) % kRing] = e;
        else
          *reinterpret_cast<volatile unsigned long long*>(q.slot + base + (at - to_ring)) = e;
      }
      lcount += to_ring;
      pushed += total;
      __syncwarp();
    }
    if (lane == 0 && pushed != n) {
      atomicAdd(reinterpret_cast<unsigned long long*>(q.pending), static_cast<unsigned long long>(pushed - n));
    }
    if (lane == 0) atomicAdd(q.work, static_cast<unsigned long long>(n));
  }
}

__global__ void init(int* level, int n, unsigned long long* slot, unsigned long long used, int src) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n || i < (long long)used;
       i += (long long)gridDim.x * blockDim.x) {
    if (i < n) level[i] = i == src ? 0 : 0x7fffffff;
    if (i < (long long)used) slot[i] = i == 0 ? static_cast<unsigned long long>(src) : kEmpty;
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: async_bfs grid W H | urand N DEG  [blocks_per_sm threads max_sleep_ns keep(0: global queue only)]\n");
    return 1;
  }
  std::string kind = argv[1];
  int a = std::atoi(argv[2]), b = std::atoi(argv[3]);
  int bps = argc > 4 ? std::atoi(argv[4]) : 1, threads = argc > 5 ? std::atoi(argv[5]) : 256,
      max_sleep = argc > 6 ? std::atoi(argv[6]) : 256, keep = argc > 7 ? std::atoi(argv[7]) : 0;
  Graph g = kind == "grid" ? make_grid(a, b) : make_urand(a, b);
  int src = 0;  // highest degree, lowest id
  for (int v = 0; v < g.n; ++v)
    if (g.rowptr[v + 1] - g.rowptr[v] > g.rowptr[src + 1] - g.rowptr[src]) src = v;
  std::vector<int> want = host_bfs(g, src);
  int depth = *std::max_element(want.begin(), want.end());

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int64_t* d_rowptr;
  int *d_cols, *d_level, *d_overflow;
  CK(cudaMalloc(&d_rowptr, sizeof(int64_t) * (g.n + 1)));
  CK(cudaMalloc(&d_cols, sizeof(int) * g.cols.size()));
  CK(cudaMalloc(&d_level, sizeof(int) * g.n));
  CK(cudaMemcpy(d_rowptr, g.rowptr.data(), sizeof(int64_t) * (g.n + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_cols, g.cols.data(), sizeof(int) * g.cols.size(), cudaMemcpyHostToDevice));
  Queue q;
  q.cap = 4ull * g.n + 64;
  CK(cudaMalloc(&q.slot, sizeof(unsigned long long) * q.cap));
  unsigned long long* ctr;  // head, tail, pending, work
  CK(cudaMalloc(&ctr, 4 * 128));
  CK(cudaMalloc(&d_overflow, sizeof(int)));
  q.head = ctr;
  q.tail = ctr + 16;
  q.pending = reinterpret_cast<long long*>(ctr + 32);
  q.work = ctr + 48;
  q.overflow = d_overflow;

  int occ = 0;
  size_t shm = keep > 0 ? (threads / 32) * kRing * sizeof(unsigned long long) : 0;
  if (keep > 0)
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, async_bfs_local, threads, shm));
  else
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, async_bfs, threads, 0));
  int blocks = std::min(bps, occ) * prop.multiProcessorCount;
  unsigned long long used = q.cap;  // the first run clears the whole queue
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  unsigned long long work = 0, tail = 0;
  int overflow = 0;
  for (int r = 0; r < 12; ++r) {
    CK(cudaEventRecord(e0));
    init<<<prop.multiProcessorCount * 8, 256>>>(d_level, g.n, q.slot, used, src);
    unsigned long long c0[64] = {0};
    c0[16] = 1;  // tail
    c0[32] = 1;  // pending
    CK(cudaMemcpyAsync(ctr, c0, sizeof(c0), cudaMemcpyHostToDevice));
    CK(cudaMemsetAsync(d_overflow, 0, sizeof(int)));
    if (keep > 0)
      async_bfs_local<<<blocks, threads, shm>>>(d_rowptr, d_cols, d_level, q, max_sleep, keep);
    else
      async_bfs<<<blocks, threads>>>(d_rowptr, d_cols, d_level, q, max_sleep);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (r >= 2) ms.push_back(t);
    CK(cudaMemcpy(&tail, q.tail, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&work, q.work, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&overflow, d_overflow, 4, cudaMemcpyDeviceToHost));
    used = std::min(q.cap, tail + 64);
    std::vector<int> got(g.n);
    CK(cudaMemcpy(got.data(), d_level, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int v = 0; v < g.n; ++v) bad += (want[v] < 0 ? got[v] != 0x7fffffff : got[v] != want[v]);
    if (bad || overflow) {
      std::printf("run %d: WRONG: %ld levels differ, overflow %d\n", r, bad, overflow);
      return 3;
    }
  }
  std::sort(ms.begin(), ms.end());
  long reached = std::count_if(want.begin(), want.end(), [](int x) { return x >= 0; });
  std::printf("%s %d %d: n %d, source %d, depth %d, reached %ld; %d blocks x %d threads, sleep<=%d ns, keep %d: "
              "median %.3f ms (min %.3f), queued %llu (%.3f per reached vertex), levels checked\n",
              kind.c_str(), a, b, g.n, src, depth, reached, blocks, threads, max_sleep, keep, ms[ms.size() / 2], ms[0],
              tail, static_cast<double>(tail) / reached);
  return 0;
}
