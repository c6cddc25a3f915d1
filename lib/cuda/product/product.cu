// The boolean masked product on the GPU: t<mask> = u' * A over LorLand, AnyPair or AnySecondI
// (vxm; mxv walks A' the same way), the CUDA backend of vxm/mxv for those semirings. ONE
// launch per product, no host wait: cooperative over the grid, or a plain launch of one block on
// a small graph (one_block_product(), where the barriers between phases are the block's):
//
//   A   every block: zero the product's claimed bits (and the input bitmap a pull may need), the
//       output's count and trace. barrier.
//   A2  only when needed (u not a sparse list, no trace of u for this matrix, or LorLand): turn u
//       into the list a push walks and the bitmap a pull reads, summing its out-edges. barrier.
//   B   every block evaluates choose_product_kernel() on the same device-side counts (u's count,
//       its out-edges and the history carried in its trace, the mask's count), so all agree.
//       A pull from a sparse u first scatters u into its bitmap (barrier).
//   C   the chosen body (bodies.cuh): queue-warp/block/global push, few-long-rows, single-block
//       (block 0), or the bitmap pull; it appends (index, value) to the output and counts its
//       entries and out-edges into the output's device tally.
//
// The output is a sparse, unsorted ("jumbled") vector whose count and trace stay in device
// memory; the next product reads both there. GraphBLAS semantics: the mask is only read; each
// output entry is claimed once in the product's own bitmap, so no duplicates.
//
// LorLand reads values: a term is u(k) AND A(k,j), and the product runs here only when A is a
// pattern of true values (operations.hpp checks), so a term is u(k). Its push runs in two
// passes, first the entries of u that are true (their outputs are true), then the false ones
// (what they alone reach is false); its pull looks past false terms for a true one.
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/product/bodies.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda {
namespace product {
namespace {

namespace cg = cooperative_groups;

// How the mask bounds the outputs a pull may have to search, for the cost model's estimate of
// the unexplored edges when u carries no trace.
enum class MaskBound : int { None, AllowsCount, ExcludesCount };

// Phase B's decision, made by thread 0 of each block and shared with the block.
struct Decision {
  ProductKernel kind;
  Index frontier_edges;  // u's out-edges (recorded in its trace or summed in A2)
  Index false_size;      // LorLand: u's false entries
  Index list_size;       // the entries the push walks (u's own list, or the one A2 made)
};

// Device-side counters of one product (scratch, zeroed in phase A).
struct Counters {
  ull list_size;   // entries in `list` (true entries for LorLand)
  ull false_size;  // LorLand: entries in `list_false`
  ull edges;       // out-edges of u's entries
  ull deferred;    // the pull's DeferredRows::packed
};

template <class Z, OutValue K>
struct ProductArgs {
  ProductTarget<Z, K> t;
  ProductPolicy policy;
  bool can_push = false, can_pull = false;
  bool blind_claims_ok = false;  // blind_claims_allowed() for the claimed bitmap
  // u, the input
  VectorForm u_form = VectorForm::Sparse;
  Index u_n = 0;
  const Vid* u_idx = nullptr;  // Sparse
  Index u_count = 0;
  const Index* u_count_dev = nullptr;
  const std::uint8_t* u_bitmap = nullptr;  // Bitmap
  const bool* u_vals = nullptr;            // LorLand: u's values (Sparse: per entry; else per position)
  const DeviceTally* u_tally = nullptr;    // u's trace, when it is valid for these push rows
  // the mask's count, for the estimate
  MaskBound mask_bound = MaskBound::None;
  Index mask_count = 0;
  const Index* mask_count_dev = nullptr;
  // scratch
  std::uint32_t* fin = nullptr;    // ceil(u_n/32) words: u as a bitmap (pull)
  std::uint32_t* ftrue = nullptr;  // LorLand: u's true entries as a bitmap
  Vid* list = nullptr;             // u_n: u's entries as a list (true ones for LorLand)
  Vid* list_false = nullptr;       // LorLand: u's false entries
  Counters* counters = nullptr;
  DeferredRows deferred;       // the pull's long rows (v null: none deferred)
  DeviceTally* out = nullptr;  // the output's count and trace
};

template <class Z, OutValue K>
std::size_t product_smem_bytes(const Capacities& caps) {
  return body_queue_smem_bytes<ProductTarget<Z, K>>(caps);
}

// Warp-aggregated append of `v` (when `have`) to list[*size].
__device__ __forceinline__ void append_entry(bool have, Vid v, Vid* list, ull* size) {
  const unsigned m = __ballot_sync(kFullMask, have);
  if (m == 0) return;
  ull base = 0;
  if (lane_id() == 0) base = atomicAdd(size, ull(__popc(m)));
  base = __shfl_sync(kFullMask, base, 0);
  if (have) list[base + __popc(m & lanes_below())] = v;
}

// The barrier between the product's phases: the grid's (a cooperative launch), or the block's
// when one block is the whole grid (a plain launch, which starts sooner: on the H200 a
// one-block cooperative launch with four barriers took 10 us from enqueue to done, a plain one
// 6.5 us).
template <bool kOneBlock>
struct PhaseBarrier {
  __device__ void sync() const {
    if constexpr (kOneBlock) __syncthreads();
    else cg::this_grid().sync();
  }
};

template <class Z, OutValue K, bool kOneBlock>
__global__ void __launch_bounds__(kThreads, 1) product_kernel(ProductArgs<Z, K> a) {
  using Tgt = ProductTarget<Z, K>;
  constexpr bool kTerms = K == OutValue::Term;
  extern __shared__ Vid smem[];
  __shared__ PushShared ps;
  __shared__ FewRowsShared fs;
  __shared__ SingleShared ss;
  __shared__ ull s_sum;
  // Values every thread needs that live in device memory (u's count, its trace, the counters of
  // phase A2) are loaded by thread 0 of each block and shared: every warp of the grid loading the
  // same few words (4,224 warps, about eight loads each) cost a narrow product about 5 us (H200).
  __shared__ Index s_count;
  __shared__ Decision s_d;
  const PhaseBarrier<kOneBlock> barrier;
  const Graph& g = a.t.g;
  const Index in_words = (a.u_n + 31) / 32;
  const Index out_words = (g.n + 31) / 32;
  const bool u_sparse = a.u_form == VectorForm::Sparse;
  const bool need_edges = a.can_push && !a.u_tally;

  // ---- A: clear what this product accumulates into ----
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *a.counters = Counters{0, 0, 0, 0};
    a.out->nvals = 0;
    a.out->trace.edges = 0;
    a.out->trace.examined = 0;
  }
  if (threadIdx.x == 0) {
    ps.count = 0;
    ps.big.owner = INT_MAX;
  }
  if (a.can_push || a.deferred.v)  // the push's claims, or the claims of deferred rows' finds
    for (Index w = global_thread(); w < out_words; w += grid_threads()) a.t.claimed[w] = 0;
  if (a.can_pull && u_sparse) {
    for (Index w = global_thread(); w < in_words; w += grid_threads()) {
      a.fin[w] = 0;
      if constexpr (kTerms) a.ftrue[w] = 0;
    }
  }
  barrier.sync();

  if (threadIdx.x == 0)
    s_count = a.u_count_dev ? Index(__ldcg(reinterpret_cast<const ull*>(a.u_count_dev))) : a.u_count;
  __syncthreads();
  const Index count = s_count;

  // ---- A2: u as a list and a bitmap, its out-edges ----
  if (!u_sparse || need_edges || kTerms) {
    ull edges = 0;
    if (u_sparse) {
      for (Index p = global_thread(); p < count; p += grid_threads()) {
        const Vid v = a.u_idx[p];
        if (need_edges) edges += ull(g.out_ptr[v + 1] - g.out_ptr[v]);
        if constexpr (kTerms) {
          const bool val = a.u_vals[p];
          // not warp-aggregated: a lane per entry, each entry to its own list
          if (val) a.list[atomicAdd(&a.counters->list_size, 1ull)] = v;
          else a.list_false[atomicAdd(&a.counters->false_size, 1ull)] = v;
        }
      }
    } else {
      // One warp per word of 32 positions: the word of the bitmap from one vote.
      const Index nwarps = grid_threads() / 32;
      for (Index w = global_thread() / 32; w < in_words; w += nwarps) {
        const Index v = w * 32 + lane_id();
        const bool present = v < a.u_n && (a.u_form == VectorForm::Dense || a.u_bitmap[v] != 0);
        const std::uint32_t bits = __ballot_sync(kFullMask, present);
        bool val = true;
        if constexpr (kTerms) val = present && a.u_vals[v];
        if (a.can_pull && lane_id() == 0) a.fin[w] = bits;
        if constexpr (kTerms) {
          const std::uint32_t tb = __ballot_sync(kFullMask, present && val);
          if (a.can_pull && lane_id() == 0) a.ftrue[w] = tb;
          append_entry(present && val, Vid(v), a.list, &a.counters->list_size);
          append_entry(present && !val, Vid(v), a.list_false, &a.counters->false_size);
        } else {
          append_entry(present, Vid(v), a.list, &a.counters->list_size);
        }
        if (present && need_edges) edges += ull(g.out_ptr[v + 1] - g.out_ptr[v]);
      }
    }
    if (need_edges) block_add(edges, &a.counters->edges, &s_sum);
    barrier.sync();
  }

  // ---- B: the decision, the same in every block (thread 0 of each makes it) ----
  if (threadIdx.x == 0) {
    FrontierInfo info;
    info.frontier_size = count;
    info.n = g.n;
    if (a.u_tally) {  // the history the product that made u recorded
      info.frontier_edges = Index(__ldcg(reinterpret_cast<const ull*>(&a.u_tally->trace.edges)));
      info.previous_frontier_size = Index(__ldcg(reinterpret_cast<const ull*>(&a.u_tally->trace.input_size)));
      info.unexplored_edges = Index(__ldcg(reinterpret_cast<const ull*>(&a.u_tally->trace.unexplored)));
      info.pulling = __ldcg(&a.u_tally->trace.pulled) != 0;
      // u's own pull sets the penalty (see pull_penalty_after); else the one u was made with.
      info.pull_penalty =
          info.pulling
              ? pull_penalty_after(a.policy, Index(__ldcg(reinterpret_cast<const ull*>(&a.u_tally->trace.examined))),
                                   info.unexplored_edges)
              : __ldcg(&a.u_tally->trace.pull_penalty);
    } else {  // estimate: the edges into the outputs the mask allows, pro rata
      info.frontier_edges = need_edges ? Index(__ldcg(&a.counters->edges)) : 0;
      Index allowed = g.n;
      if (a.mask_bound != MaskBound::None) {
        const Index c = a.mask_count_dev ? Index(__ldcg(reinterpret_cast<const ull*>(a.mask_count_dev))) : a.mask_count;
        allowed = a.mask_bound == MaskBound::AllowsCount ? c : g.n - c;
      }
      info.unexplored_edges = g.n > 0 ? Index(double(g.nnz) * double(max(allowed, Index(0))) / double(g.n)) : 0;
    }
    const Index false_size = kTerms ? Index(__ldcg(&a.counters->false_size)) : 0;
    ProductKernel kind = a.can_push ? choose_product_kernel(a.policy, info, a.can_pull) : ProductKernel::Pull;
    if (kind == ProductKernel::SingleBlock && (count > Index(a.t.caps.single_block_queue) || false_size > 0))
      kind = ProductKernel::QueueBlock;  // one level in one block needs its queue; LorLand's second pass, a grid
    const bool pull = kind == ProductKernel::Pull;
    if (blockIdx.x == 0) {
      a.out->trace.input_size = count;
      a.out->trace.unexplored = max(Index(0), info.unexplored_edges - info.frontier_edges);
      a.out->trace.kernel = int(kind);
      a.out->trace.pulled = pull ? 1 : 0;
      a.out->trace.pull_penalty = info.pull_penalty;
      if (!pull) a.out->trace.examined = info.frontier_edges;
    }
    const bool own_list = !u_sparse || kTerms;
    s_d = Decision{kind, info.frontier_edges, false_size, own_list ? Index(__ldcg(&a.counters->list_size)) : count};
    wide_level() = wide_level_for(!pull, ull(info.frontier_edges), ull(max(info.unexplored_edges, Index(0))),
                                  ull(g.nnz), a.blind_claims_ok);
  }
  __syncthreads();  // the decision and the flags, for every thread of the block
  const Decision dec = s_d;
  const ProductKernel kind = dec.kind;
  const bool pull = kind == ProductKernel::Pull;
  const LevelCounters k{reinterpret_cast<ull*>(&a.out->nvals), reinterpret_cast<ull*>(&a.out->trace.edges),
                        reinterpret_cast<ull*>(&a.out->trace.examined)};

  // ---- C: the body ----
  if (pull) {
    if (u_sparse) {  // the bitmap from the list (zeroed in A)
      for (Index p = global_thread(); p < count; p += grid_threads()) {
        const Vid v = a.u_idx[p];
        atomicOr(a.fin + (v >> 5), 1u << (v & 31));
        if constexpr (kTerms)
          if (a.u_vals[p]) atomicOr(a.ftrue + (v >> 5), 1u << (v & 31));
      }
      barrier.sync();
    }
    Tgt t = a.t;
    t.term = false;  // the pull writes each entry's own term
    if constexpr (kTerms) t.ftrue = a.ftrue;
    DeferredRows d = a.deferred;
    d.packed = &a.counters->deferred;
    d.lane_steps = pull_lane_steps(a.u_n, count);
    pull_level(t, 0, a.fin, k, d, smem, &s_sum);
    if (!d.v) return;
    barrier.sync();
    if (__ldcg(d.packed) != 0) pull_deferred_rows(t, 0, a.fin, k, d, &s_sum);
    return;
  }
  const Vid* in = !u_sparse || kTerms ? a.list : a.u_idx;
  // LorLand: the true entries first, then the false ones (a barrier between the passes).
  for (int pass = 0; pass < (kTerms ? 2 : 1); ++pass) {
    Tgt t = a.t;
    t.term = pass == 0;
    const Vid* pin = pass == 0 ? in : a.list_false;
    const Index psize = pass == 0 ? dec.list_size : dec.false_size;
    if (pass == 1) barrier.sync();
    if (psize == 0) continue;
    if (kind == ProductKernel::SingleBlock && !few_long_rows(psize, dec.frontier_edges)) {
      if (blockIdx.x == 0) {
        const LevelRule rule{a.policy, a.t.caps, g.n, a.can_pull};
        Control c{};
        c.frontier_size = ull(psize);
        c.frontier_edges = ull(dec.frontier_edges);
        c.level = 1;
        // the body spills into the output's count (the tail) and then writes its queue after them
        single_block_levels<true>(t, rule, c, pin, k.tail, nullptr, 1, smem, ss);
        if (threadIdx.x == 0) {
          a.out->nvals = Index(c.frontier_size);
          a.out->trace.edges = Index(c.frontier_edges);
        }
      }
    } else {
      grid_push_level<true>(t, 0, pin, psize, dec.frontier_edges, kind, k, smem, ps, fs);
    }
  }
}

// Co-resident blocks of the product kernel for `smem` bytes of dynamic shared memory; the
// occupancy query runs once per kernel and size.
template <class Z, OutValue K>
int product_blocks(std::size_t smem, int sms) {
  static std::atomic<std::size_t> raised{0};
  static thread_local std::size_t known_smem = 0;
  static thread_local int known_blocks = 0;
  if (known_blocks > 0 && known_smem == smem) return known_blocks;
  allow_dynamic_smem(product_kernel<Z, K, false>, smem, raised);
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, product_kernel<Z, K, false>, kThreads, smem));
  known_smem = smem;
  known_blocks = per_sm * sms;
  return known_blocks;
}

Capacities g_caps;  // set_product_capacities()

template <class S>
constexpr OutValue out_value() {
  if constexpr (S::mul_type::positional) return OutValue::Index;
  else if constexpr (S::add_type::kind == MonoidKind::Lor) return OutValue::Term;
  else return OutValue::One;
}

}  // namespace

void set_product_capacities(const Capacities& caps) { g_caps = caps; }
Capacities product_capacities() { return g_caps; }

const DeviceFacts& device_facts() {
  static const DeviceFacts facts = [] {
    DeviceFacts f;
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&f.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    f.l2_bytes = l2;
    return f;
  }();
  return facts;
}

}  // namespace product

template <class S>
void bool_product(VectorStore<typename S::value_type>& t, const MaskView& m, const VecView<bool>& u,
                  const BoolProductCall& call) {
  using namespace product;
  using Z = typename S::value_type;
  constexpr OutValue K = out_value<S>();
  const bool can_push = call.push.row_ptr != nullptr, can_pull = call.pull.row_ptr != nullptr;
  if (!can_push && !can_pull) throw Error(Status::InvalidValue, "internal: a product with neither push nor pull rows");
  const Index n_out = can_pull ? call.pull.nrows : call.push.ncols;
  const Index n_in = u.n;
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached the product");
  t = VectorStore<Z>::empty(n_out, Backend::Cuda);
  t.jumbled = true;
  const bool nothing = n_out == 0 || (m.complement && m.bitmap == nullptr) || (!u.nvals_dev && u.nvals == 0);
  if (nothing) {
    set_nvals(t, 0);
    return;
  }
  if (!persistent_kernels_available())
    throw Error(Status::NotImplemented, "the boolean product needs a GPU with cooperative launch");
  // The library's policy: measured on this device on first use (a second or less), then cached.
  const ProductPolicy base = product::calibrated_product_policy();
  t.indices = Array<Vid>(static_cast<std::size_t>(n_out), Backend::Cuda);
  t.values = Array<Z>(static_cast<std::size_t>(n_out), Backend::Cuda);
  DeviceTally* out = tally_of(t);
  t.count_on_device = true;

  const int sms = device_facts().sms, optin = device_facts().smem_optin;
  const Capacities caps = g_caps;
  const std::size_t smem = product_smem_bytes<Z, K>(caps);
  static const std::size_t static_smem = static_smem_bytes(product_kernel<Z, K, false>);
  if (smem + static_smem + 1024 > std::size_t(optin))
    throw Error(Status::InvalidValue, "the product's queues (" + std::to_string(smem) +
                                          " bytes) do not fit in one block's shared memory (" + std::to_string(optin) +
                                          " bytes)");
  const int blocks = product_blocks<Z, K>(smem, sms);
  if (blocks == 0) throw Error(Status::InvalidValue, "the product's queues do not fit in shared memory");

  ProductArgs<Z, K> a;
  Graph& g = a.t.g;
  g.n = n_out;
  g.n_in = n_in;
  g.nnz = can_push ? call.push.nnz : call.pull.nnz;
  g.out_ptr = call.push.row_ptr;
  g.out_idx = call.push.col_idx;
  g.in_ptr = call.pull.row_ptr;
  g.in_idx = call.pull.col_idx;
  a.t.caps = caps;
  a.t.mask = m;
  a.t.count_edges = can_push && n_in == n_out && call.trace_key != nullptr;
  a.t.out_idx = t.indices.data();
  a.t.out_val = t.values.data();
  t.trace_of = a.t.count_edges ? call.trace_key : nullptr;
  a.policy = policy_for_call(base, call.direction, call.kernel, call.alpha, call.beta);
  a.can_push = can_push && a.policy.forced != ProductKernel::Pull;
  a.can_pull = can_pull;
  a.blind_claims_ok = blind_claims_allowed(n_out);
  if (!a.can_push && !a.can_pull) throw Error(Status::InvalidValue, "internal: the pull kernel needs the pull rows");
  a.u_form = u.form;
  a.u_n = n_in;
  a.u_idx = u.indices;
  a.u_count = u.nvals;
  a.u_count_dev = u.nvals_dev;
  a.u_bitmap = u.bitmap;
  a.u_vals = K == OutValue::Term ? u.values : nullptr;
  a.u_tally = call.u_tally;
  a.mask_bound = !call.mask_counted ? MaskBound::None
                 : m.complement     ? MaskBound::ExcludesCount
                                    : MaskBound::AllowsCount;
  a.mask_count = call.mask_count;
  a.mask_count_dev = call.mask_count_dev;
  a.out = out;

  Scratch scratch;
  const auto in_words = static_cast<std::size_t>((n_in + 31) / 32);
  const auto out_words = static_cast<std::size_t>((n_out + 31) / 32);
  a.t.claimed = scratch.take<std::uint32_t>(std::max<std::size_t>(out_words, 1));
  a.fin = scratch.take<std::uint32_t>(std::max<std::size_t>(in_words, 1));
  a.counters = scratch.take<Counters>(1);
  if (u.form != VectorForm::Sparse || K == OutValue::Term)
    a.list = scratch.take<Vid>(static_cast<std::size_t>(std::max<Index>(n_in, 1)));
  if (K != OutValue::Term && can_pull && call.pull.nnz > kPullLaneStepsMin) {  // else no row is long
    const auto cap = static_cast<std::size_t>(deferred_rows_capacity(n_out, call.pull.nnz, kPullLaneStepsMin));
    a.deferred.v = scratch.take<Vid>(cap);
    a.deferred.from = scratch.take<Offset>(cap);
    a.deferred.chunk_base = scratch.take<ull>(cap);
  }
  if constexpr (K == OutValue::Term) {
    a.ftrue = scratch.take<std::uint32_t>(std::max<std::size_t>(in_words, 1));
    a.list_false = scratch.take<Vid>(static_cast<std::size_t>(std::max<Index>(n_in, 1)));
    if (!u.values && n_in > 0) throw Error(Status::InvalidValue, "internal: LorLand needs u's values");
  }
  if (one_block_product(caps, n_out, n_in, g.nnz)) {  // every phase strides over the grid it has
    static std::atomic<std::size_t> raised{0};
    allow_dynamic_smem(product_kernel<Z, K, true>, smem, raised);
    product_kernel<Z, K, true><<<1, kThreads, smem, stream()>>>(a);
    CUDA_CHECK_LAUNCH();
    return;
  }
  void* params[] = {&a};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(product_kernel<Z, K, false>), dim3(unsigned(blocks)),
                                         dim3(kThreads), params, smem, stream()));
}

#define GBCUDA_INST_BOOL_PRODUCT(S)                                                                          \
  template void bool_product<S>(VectorStore<typename S::value_type>&, const MaskView&, const VecView<bool>&, \
                                const BoolProductCall&);
GBCUDA_INST_BOOL_PRODUCT(LorLand<bool>)
GBCUDA_INST_BOOL_PRODUCT(AnyPair<bool>)
GBCUDA_INST_BOOL_PRODUCT(AnySecondI<std::int32_t>)
GBCUDA_INST_BOOL_PRODUCT(AnySecondI<std::int64_t>)

}  // namespace gbcuda::detail::cuda
