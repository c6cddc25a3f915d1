#pragma once
// The dispatch layer under the public operations (operations.hpp): masks made ready for a
// backend, inputs brought to the output's backend, results merged under mask and accumulator, and
// the selector of a product's path. A product runs on one of four paths, chosen here once per call:
//   - the boolean frontier kernels (CUDA, LorLand/AnyPair/AnySecondI over a pattern: product.cu,
//     whose kernel picks its body on the device by choose_product_kernel());
//   - the value product (CUDA, every other built-in semiring: value_product.cu; push or pull by the
//     same policy on what the host knows);
//   - a device user-defined semiring (CUDA, nvcc callers only: cuda_user_ops.cuh);
//   - the host backend (host/product.hpp: scatter = push, gather = pull, by the same policy).
// What the CUDA backend does not instantiate runs on host copies (on_host_copy).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gbcuda/descriptor.hpp"
#include "gbcuda/detail/backend_ops.hpp"
#include "gbcuda/detail/host_ops.hpp"
#include "gbcuda/detail/product_policy.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/semiring.hpp"
#include "gbcuda/vector.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif
#include "gbcuda/detail/cuda_user_ops.cuh"  // kernels for device operators (nvcc callers only)

namespace gbcuda {

// The absent mask (GrB_NULL as a mask).
struct NoMask {};
inline constexpr NoMask no_mask{};

namespace detail {

[[noreturn]] void throw_dimension_mismatch(const char* op, Index expected, Index got);

// A mask made ready for one backend: the view plus whatever it had to build, and its entry
// count where that tells how many outputs it allows (a structural mask), for the product's cost
// model.
struct PreparedMask {
  MaskView view;
  Array<std::uint8_t> scratch;
  std::shared_ptr<void> keep_alive;  // a copy of the mask in this backend, when one was made
  bool counted = false;
  Index count = 0;
  const Index* count_dev = nullptr;
};

// `list_ok`: the caller's primitive walks a sparse structural mask's list itself (assign without
// replace), so no bitmap is built for it (that would cost O(n) per call).
template <class MaskArg>
PreparedMask prepare_mask(const MaskArg& mask, const Descriptor& d, Backend b, Index n, bool list_ok = false) {
  PreparedMask pm;
  pm.view.complement = d.mask_complement;
  if constexpr (std::is_same_v<MaskArg, NoMask>) {
    (void)mask;
    (void)b;
    (void)n;
    (void)list_ok;
    return pm;
  } else {
    if (mask.size() != n) throw_dimension_mismatch("mask", n, mask.size());
    // A vector of length 0 has no position to allow or forbid; its arrays may never have been
    // allocated (a null bitmap would read as a list-only mask).
    if (n == 0) return pm;
    const auto& ms = mask.store();
    if (ms.where != b) {  // bring the mask over once; the prepared view points into the copy
      auto moved = std::make_shared<std::remove_cvref_t<MaskArg>>(mask.to(b));
      PreparedMask out = prepare_mask(*moved, d, b, n, list_ok);
      out.keep_alive = moved;
      return out;
    }
    if (d.mask_structural) {
      pm.counted = true;
      pm.count = ms.nvals;
      pm.count_dev = device_nvals(ms);
    }
    if (d.mask_structural && ms.form == VectorForm::Dense) return pm;  // every entry present
    if (d.mask_structural && ms.form == VectorForm::Bitmap) {
      pm.view.bitmap = ms.bitmap.data();
      return pm;
    }
    if (d.mask_structural && ms.form == VectorForm::Sparse && !d.mask_complement) {
      // A sparse vector whose index array was never allocated has no entries: an empty list,
      // which allows nothing (an empty mask is still a mask).
      pm.view.listed = true;
      if (!ms.indices.empty()) {
        pm.view.list = ms.indices.data();
        pm.view.list_size = ms.nvals;
        pm.view.list_size_dev = device_nvals(ms);
        pm.view.list_capacity = Index(ms.indices.size());
      }
      if (list_ok) return pm;  // list only
    }
    pm.scratch = Array<std::uint8_t>(n, b);
    auto mv = view(ms);
    if (b == Backend::Host) host::mask_bitmap(pm.scratch.data(), mv, d.mask_structural);
#if GBCUDA_HAVE_CUDA
    else cuda::mask_bitmap(pm.scratch.data(), mv, d.mask_structural);
#endif
    pm.view.bitmap = pm.scratch.data();
    return pm;
  }
}

// Returns `v` itself when it already lives in `b`, else a copy held in `holder`.
template <class T>
const Vector<T>& in_backend(const Vector<T>& v, Backend b, std::optional<Vector<T>>& holder) {
  if (v.backend() == b) return v;
  holder.emplace(v.to(b));
  return *holder;
}
#if GBCUDA_HAVE_CUDA
// The rows a value product pulls, with their longest row (cached with the matrix): the pull
// skips its pass for long rows when there is none.
template <class TA>
TypedCsr pull_view(const Matrix<TA>& rows, Backend b) {
  TypedCsr t = typed(view(rows.csr(b)));
  t.longest_row = longest_row(rows);
  return t;
}
#endif
// Returns `v` in the requested form (a converted copy held in `holder` when it is not).
template <class T>
const Vector<T>& in_form(const Vector<T>& v, VectorForm f, std::optional<Vector<T>>& holder) {
  if (v.form() == f) return v;
  holder.emplace(v);
  holder->to_form(f);
  return *holder;
}
template <class MaskArg>
auto mask_to_host(const MaskArg& m) {
  if constexpr (std::is_same_v<MaskArg, NoMask>) return NoMask{};
  else return m.to(Backend::Host);
}

// An operation the CUDA backend does not run (a user-defined operator it cannot compile, a type
// combination it does not instantiate) runs on host copies: `run(wh)` computes into a host copy
// of w (the caller passes host copies of the inputs), and the result replaces w in w's backend.
// host_fallbacks() counts these calls. If anything throws, w is as it was.
template <class T, class F>
void on_host_copy(Vector<T>& w, F&& run) {
  note_host_fallback();
  Vector<T> wh = w.to(Backend::Host);
  run(wh);
  w = wh.to(w.backend());
}

template <class T, class Accum>
void merge_into(Vector<T>& w, MaskView m, const Accum& accum, VectorStore<T>& t, bool replace) {
  // A mask that is w itself (GraphBLAS allows it) lists positions in w's own arrays, and its
  // count may be w's: the merge may free the one and change the other. Work from a copy.
  Array<Vid> list_copy;
  Array<Index> count_copy;
  const auto& ws = w.store();
  if (m.listed && m.list != nullptr && m.list == ws.indices.data()) {
    list_copy = ws.indices.clone();
    m.list = list_copy.data();
    if (m.list_size_dev) {
      count_copy = Array<Index>(1, ws.where);
      copy_bytes(count_copy.data(), ws.where, m.list_size_dev, ws.where, sizeof(Index));
      m.list_size_dev = count_copy.data();
    }
  }
  if (w.backend() == Backend::Host) host::merge(w.store(), m, accum, t, replace);
#if GBCUDA_HAVE_CUDA
  else if constexpr (cuda_supports_accum<Accum, T>()) cuda::merge(w.store(), m, accum, t, replace);
#endif
  w.conform();
}

// Structural semirings read neither operand's values: hand the backends value-free views.
template <class S>
inline constexpr bool is_structural_v = !S::mul_type::uses_x && !S::mul_type::uses_y;

// The rows a product walks: those of op(A) for a pull (indexed by the output), those of op(A)'
// for a push (indexed by the input). A structurally symmetric matrix is its own transpose for a
// product that reads no values of it.
template <class S, class TA>
const Matrix<TA>& push_rows(const Matrix<TA>& A, bool transposed) {
  if (transposed) return A;
  if (is_structural_v<S> && A.nrows() == A.ncols() && A.is_symmetric_structure()) return A;
  return A.transpose();
}
template <class S, class TA>
const Matrix<TA>& pull_rows(const Matrix<TA>& A, bool transposed) {
  if (!transposed) return A;
  if (is_structural_v<S> && A.nrows() == A.ncols() && A.is_symmetric_structure()) return A;
  return A.transpose();
}

// Out-edges of a host vector's entries along the push rows (what a push of it would walk).
template <class TU, class TA>
Index entry_edges(const VectorStore<TU>& u, const Csr<TA>& push) {
  auto deg = [&](Index k) -> Index { return push.row_ptr[k + 1] - push.row_ptr[k]; };
  namespace hu = host::util;
  if (u.form == VectorForm::Sparse)
    return hu::sum_over(u.nvals, hu::kParallelMin, [&](Index p) { return deg(u.indices[p]); });
  if (u.form == VectorForm::Dense) return push.row_ptr[u.n] - push.row_ptr[0];
  return hu::sum_over(u.n, hu::kParallelMin, [&](Index k) -> Index { return u.bitmap[k] ? deg(k) : 0; });
}

// The host backend's push/pull choice: the library's policy (product_policy.hpp) on counts the
// host has at hand, the history from u's trace when it was made with these push rows.
template <class TU, class TA>
bool host_pulls(const Vector<TU>& u, const Csr<TA>& push, const PreparedMask& pm, const ProductPolicy& p, Index n_out) {
  if (p.forced != ProductKernel::Auto) return p.forced == ProductKernel::Pull;
  const auto& us = u.store();
  FrontierInfo info;
  info.frontier_size = us.nvals;
  info.n = n_out;
  if (us.trace_of == push.row_ptr.data()) {
    info.frontier_edges = us.trace.edges;
    info.previous_frontier_size = us.trace.input_size;
    info.unexplored_edges = us.trace.unexplored;
    info.pulling = us.trace.pulled != 0;
    info.pull_penalty = us.trace.pull_penalty;  // the host's pulls do not count their reads: no new penalty
  } else {
    info.frontier_edges = entry_edges(us, push);
    Index allowed = n_out;
    if (pm.counted) allowed = pm.view.complement ? n_out - pm.count : pm.count;
    info.unexplored_edges = n_out > 0 ? Index(double(push.nvals()) * double(allowed) / double(n_out)) : 0;
  }
  return choose_product_kernel(p, info) == ProductKernel::Pull;
}

// Records on a host product's output what the next product's policy needs (see ProductTrace).
template <class TZ, class TU, class TA>
void host_trace(VectorStore<TZ>& t, const Vector<TU>& u, const Csr<TA>& push, bool pulled, Index examined) {
  if (push.nrows != t.n) return;  // the output must index the push rows
  const auto& us = u.store();
  ProductTrace tr;
  Index in_edges = 0;
  if (us.trace_of == push.row_ptr.data()) {
    in_edges = us.trace.edges;
    tr.unexplored = us.trace.unexplored;
  } else {
    in_edges = entry_edges(us, push);
    tr.unexplored = push.nvals();
  }
  tr.unexplored = std::max<Index>(0, tr.unexplored - in_edges);
  tr.edges = entry_edges(t, push);
  tr.input_size = us.nvals;
  tr.examined = pulled ? examined : in_edges;
  tr.pulled = pulled ? 1 : 0;
  if (us.trace_of == push.row_ptr.data()) tr.pull_penalty = us.trace.pull_penalty;
  // The host has one pull and one push; its push is none of the GPU's kernels: Auto.
  tr.kernel = static_cast<std::int32_t>(pulled ? ProductKernel::Pull : ProductKernel::Auto);
  t.trace = tr;
  t.trace_of = push.row_ptr.data();
}

// The semirings and types cuSPARSE's products compute (by_cusparse decides per call).
template <class S, class TA, class TB>
inline constexpr bool cusparse_computes_v =
    std::is_same_v<S, PlusTimes<typename S::value_type>> &&
    (std::is_same_v<typename S::value_type, float> ||
     std::is_same_v<typename S::value_type,
                    double>)&&std::is_same_v<TA, typename S::value_type>&& std::is_same_v<TB, typename S::value_type>;

// Below this many entries a u'*A whose input count is on the GPU is pulled without weighing: the
// GPU's choice costs five more launches (listing u, counting its edges, choosing, and the push's
// clear and count), about what a pull over a million entries does.
inline constexpr Index kDeviceChosenMinEntries = Index(1) << 20;

// The edges a pull may have to examine: A's nnz entries spread over the n_out output positions,
// those the mask allows when the host knows its count (else all).
inline Index unexplored_edges(Index nnz, const PreparedMask& pm, Index n_out) {
  Index allowed = n_out;
  if (pm.counted && pm.count_dev == nullptr) allowed = pm.view.complement ? n_out - pm.count : pm.count;
  return n_out > 0 ? Index(double(nnz) * double(allowed) / double(n_out)) : 0;
}

// The CUDA value product's push/pull choice: the library's policy (product_policy.hpp) on what the
// host knows without waiting for the GPU: u's form, and its count when the host has it (a push
// would walk about count x the average row length). A count still on the device leaves the
// form to decide: a Sparse u (under 1/32 full when it was formed) is pushed.
template <class TU>
bool value_pulls(const Vector<TU>& u, Index push_nnz, Index push_nrows, const PreparedMask& pm, const ProductPolicy& p,
                 Direction direction, Index n_out) {
  if (p.forced != ProductKernel::Auto) return p.forced == ProductKernel::Pull;
  const auto& us = u.store();
  if (us.count_on_device) return us.form != VectorForm::Sparse && direction != Direction::Push;
  FrontierInfo info;
  info.frontier_size = us.nvals;
  info.n = n_out;
  info.frontier_edges = Index(double(us.nvals) * double(push_nnz) / double(std::max<Index>(1, push_nrows)));
  info.unexplored_edges = unexplored_edges(push_nnz, pm, n_out);
  return choose_product_kernel(p, info) == ProductKernel::Pull;
}

// t = op(A)*u (or u'*op(A)) into t of the semiring's type, in t's backend (u already there).
template <class S, class TA, class TU>
void product(Vector<typename S::value_type>& w, const PreparedMask& pm, const S& s, const Matrix<TA>& A,
             bool transposed, const Vector<TU>& u, bool u_first, const Descriptor& d) {
  using Z = typename S::value_type;
  const Backend b = w.backend();
  VectorStore<Z> t;
  std::optional<Vector<TU>> u_hold;
  // The descriptor's choices over the library's defaults; on the GPU the boolean kernels lay the
  // same choices over the calibrated policy instead (product.cu).
  const ProductPolicy p = policy_for_call(ProductPolicy{}, d.direction, d.kernel, d.alpha, d.beta);
#if GBCUDA_HAVE_CUDA
  if (b == Backend::Cuda) {
    if constexpr (is_bool_product_v<S>) {
      // LorLand reads values: the frontier kernels take it over a pattern of true values only.
      const bool pattern = is_structural_v<S> || (A.is_iso() && A.csr(b).iso_value != TA(0));
      if (pattern) {
        const bool want_push = p.forced != ProductKernel::Pull;
        const bool want_pull =
            p.forced == ProductKernel::Auto ? d.direction != Direction::Push : p.forced == ProductKernel::Pull;
        cuda::BoolProductCall call;
        if (want_push) call.push = value_free(view(push_rows<S>(A, transposed).csr(b)));
        if (want_pull) call.pull = value_free(view(pull_rows<S>(A, transposed).csr(b)));
        call.trace_key = call.push.row_ptr;
        const auto& us = u.store();
        if (call.trace_key && us.trace_of == call.trace_key) call.u_tally = us.tally.data();
        call.direction = d.direction;
        call.kernel = d.kernel;
        call.alpha = d.alpha;
        call.beta = d.beta;
        call.mask_counted = pm.counted;
        call.mask_count = pm.count;
        call.mask_count_dev = pm.count_dev;
        if constexpr (is_structural_v<S>) cuda::bool_product<S>(t, pm.view, value_free(view(us)), call);
        else cuda::bool_product<S>(t, pm.view, view(us), call);
        w.store() = std::move(t);
        return;
      }
    }
    if constexpr (cuda_supports_semiring<S, TA, TU>()) {  // every other built-in semiring: the value product
      constexpr cuda::SemiringCode code = cuda::semiring_code<S>();
      const ProductPolicy vp = policy_for_call(value_product_policy(), d.direction, d.kernel, d.alpha, d.beta);
      const Index push_nrows = transposed ? A.nrows() : A.ncols();
      if constexpr (cusparse_computes_v<S, TA, TU>) {
        const auto& us = u.store();
        // Full: every position present, so u's values array is the dense vector cuSPARSE reads
        // (a Sparse u of n sorted entries holds u(i) at position i).
        const bool full = us.form == VectorForm::Dense ||
                          (!us.count_on_device && us.nvals == us.n && (us.form == VectorForm::Bitmap || !us.jumbled));
        LibraryProductCase c;
        c.computes = !A.is_iso() && A.nvals() <= Index(std::numeric_limits<std::int32_t>::max());
        c.masked = pm.view.present();
        c.input_full = full;
        c.direction = d.direction;
        if (by_cusparse(p, c)) {
          const Matrix<TA>& rows = pull_rows<S>(A, transposed);
          const std::shared_ptr<void> engine = device_engine_state(rows, &cuda::make_spmv_engine);
          cuda::library_spmv<Z>(t, view(rows.csr(b)), device_row_offsets32(rows), us.values.data(), engine.get());
          w.store() = std::move(t);
          return;
        }
      }
      const auto& ust = u.store();
      if (ust.count_on_device && ust.form == VectorForm::Bitmap && transposed && vp.forced == ProductKernel::Auto &&
          d.direction == Direction::Auto && A.nvals() >= kDeviceChosenMinEntries) {
        // The host would have to wait to know u's count: the GPU weighs the pull against the
        // push (u'*A: the push walks A's own rows, no transpose to build).
        cuda::value_product_on_device<Z>(t, pm.view, code, pull_view(pull_rows<S>(A, transposed), b),
                                         typed(view(push_rows<S>(A, transposed).csr(b))), typed(view(ust)), u_first, vp,
                                         unexplored_edges(A.nvals(), pm, w.size()));
        w.store() = std::move(t);
        return;
      }
      if (value_pulls(u, A.nvals(), push_nrows, pm, vp, d.direction, w.size())) {
        const Vector<TU>& ug = u.form() == VectorForm::Sparse ? in_form(u, VectorForm::Bitmap, u_hold) : u;
        cuda::value_pull<Z>(t, pm.view, code, pull_view(pull_rows<S>(A, transposed), b), typed(view(ug.store())),
                            u_first);
      } else {
        const Vector<TU>& us = in_form(u, VectorForm::Sparse, u_hold);
        cuda::value_push<Z>(t, pm.view, code, typed(view(push_rows<S>(A, transposed).csr(b))), typed(view(us.store())),
                            u_first);
      }
      w.store() = std::move(t);
    }
#if GBCUDA_USER_KERNELS
    else if constexpr (cuda_user_semiring<S, TA, TU>()) {  // a device semiring: a pull in the caller's kernels
      const Vector<TU>& ug = u.form() == VectorForm::Sparse ? in_form(u, VectorForm::Bitmap, u_hold) : u;
      cuda_user::pull(t, pm.view, s, view(pull_rows<S>(A, transposed).csr(b)), view(ug.store()), u_first);
      w.store() = std::move(t);
    }
#endif
    return;
  }
#endif
  const Matrix<TA>& push_m = transposed ? A : A.transpose();  // rows of op(A)'
  const Csr<TA>& push = push_m.csr(b);
  const bool pull = host_pulls(u, push, pm, p, w.size());
  Index examined = 0;
  if (!pull) {
    const Vector<TU>& us = in_form(u, VectorForm::Sparse, u_hold);
    host::scatter(t, pm.view, s, view(push), view(us.store()), u_first);
  } else {
    const Matrix<TA>& rows_m = transposed ? A.transpose() : A;  // rows of op(A)
    const Vector<TU>& ug = u.form() == VectorForm::Sparse ? in_form(u, VectorForm::Bitmap, u_hold) : u;
    host::gather(t, pm.view, s, view(rows_m.csr(b)), view(ug.store()), u_first);
    examined = rows_m.nvals();
  }
  if constexpr (is_bool_product_v<S>) host_trace(t, u, push, pull, examined);
  w.store() = std::move(t);
}

// t's pattern (form, count, indices, flags: its arrays taken over) with other values, of type T.
template <class T, class Z>
VectorStore<T> with_pattern_of(VectorStore<Z>&& t, Array<T>&& values) {
  VectorStore<T> o;
  o.n = t.n;
  o.where = t.where;
  o.form = t.form;
  o.nvals = t.nvals;
  o.count_on_device = t.count_on_device;
  o.tally = std::move(t.tally);
  o.jumbled = t.jumbled;
  o.indices = std::move(t.indices);
  o.bitmap = std::move(t.bitmap);
  o.values = std::move(values);
  return o;
}

// A result of type Z as type T (GraphBLAS typecasting, cast_to), in its own backend; t's arrays
// are taken over.
template <class T, class Z>
VectorStore<T> cast_store(VectorStore<Z>&& t) {
  const Index len = Index(t.values.size());
  Array<T> values(static_cast<std::size_t>(len), t.where);
  if (t.where == Backend::Host) {
    const Z* in = t.values.data();
    T* out = values.data();
    host::util::for_each_index(len, host::util::kParallelMin, [&](Index p) { out[p] = cast_to<T>(in[p]); });
  }
#if GBCUDA_HAVE_CUDA
  else if constexpr (is_value_type_v<T> && is_value_type_v<Z>)
    cuda::cast_values<T>(values.data(), typed_values(t.values.data()), len);
#endif
  return with_pattern_of<T>(std::move(t), std::move(values));
}

template <class TW, class MaskArg, class Accum, class S, class TA, class TU>
void product_op(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Matrix<TA>& A,
                const Vector<TU>& u, const Descriptor& d, bool is_vxm) {
  using Z = typename S::value_type;
  const bool transposed = is_vxm != d.transpose_a;  // walk the rows of op(A)
  const Index out_n = transposed ? A.ncols() : A.nrows();
  const Index in_n = transposed ? A.nrows() : A.ncols();
  if (w.size() != out_n) throw_dimension_mismatch(is_vxm ? "vxm output" : "mxv output", out_n, w.size());
  if (u.size() != in_n) throw_dimension_mismatch(is_vxm ? "vxm input" : "mxv input", in_n, u.size());
  const Backend b = w.backend();
  bool on_cuda_ok = true;
  if constexpr (!(GBCUDA_HAVE_CUDA && (cuda_supports_semiring<S, TA, TU>() || cuda_user_semiring<S, TA, TU>()) &&
                  cuda_supports_accum<Accum, TW>()))
    on_cuda_ok = false;
  if (b == Backend::Cuda && !on_cuda_ok) {  // run on host copies
    on_host_copy(
        w, [&](Vector<TW>& wh) { product_op(wh, mask_to_host(mask), accum, s, A, u.to(Backend::Host), d, is_vxm); });
    return;
  }
  std::optional<Vector<TU>> u_hold;
  const Vector<TU>& ub = in_backend(u, b, u_hold);
  PreparedMask pm = prepare_mask(mask, d, b, out_n);
  Vector<Z> t(out_n, b);
  product(t, pm, s, A, transposed, ub, is_vxm, d);
  if constexpr (std::is_same_v<Z, TW>) merge_into(w, pm.view, accum, t.store(), d.replace);
  else {
    VectorStore<TW> tw = cast_store<TW>(std::move(t.store()));
    merge_into(w, pm.view, accum, tw, d.replace);
  }
}

// A vector select's predicate as the host apply's keep: u(i) = x stays when op(x, i, 0, thunk)
// holds. A named type, not a lambda inside select, so that the host loop is compiled once per
// predicate and value type, not once per mask and accumulator type of the call as well.
template <SelectKind K, class T>
struct SelectKeep {
  SelectThunk<T> thunk;
  bool operator()(const T& x, Index i) const { return select_holds(K, x, i, Index(0), thunk); }
};

// A user-defined index-unary predicate as select's keep test: pred(x, i, 0, thunk).
template <class Pred>
struct UserSelectKeep {
  const Pred& pred;
  double thunk;
  template <class X>
  bool operator()(const X& x, Index i) const {
    return bool(pred(x, i, Index(0), thunk));
  }
};

template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_op(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
              const Vector<TV>& v, const Descriptor& d, bool is_union) {
  static_assert(std::is_same_v<TW, typename Op::result_type>, "w must have the operator's result type");
  if (u.size() != w.size()) throw_dimension_mismatch("ewise u", w.size(), u.size());
  if (v.size() != w.size()) throw_dimension_mismatch("ewise v", w.size(), v.size());
  const Backend b = w.backend();
  constexpr bool one_type = std::is_same_v<TW, TU> && std::is_same_v<TW, TV>;
  if constexpr (!(GBCUDA_HAVE_CUDA && (cuda_supports_binary_op<Op, TW>() || cuda_user_binary_op<Op, TW>()) &&
                  one_type && cuda_supports_accum<Accum, TW>())) {
    if (b == Backend::Cuda) {
      on_host_copy(w, [&](Vector<TW>& wh) {
        ewise_op(wh, mask_to_host(mask), accum, op, u.to(Backend::Host), v.to(Backend::Host), d, is_union);
      });
      return;
    }
  }
  std::optional<Vector<TU>> u_hold;
  std::optional<Vector<TV>> v_hold;
  const Vector<TU>& ub = in_backend(u, b, u_hold);
  const Vector<TV>& vb = in_backend(v, b, v_hold);
  PreparedMask pm = prepare_mask(mask, d, b, w.size());
  VectorStore<TW> t;
  if (b == Backend::Host) host::ewise(t, pm.view, op, view(ub.store()), view(vb.store()), is_union);
#if GBCUDA_HAVE_CUDA
  else if constexpr (cuda_supports_binary_op<Op, TW>() && one_type)
    cuda::ewise(t, pm.view, op, view(ub.store()), view(vb.store()), is_union);
#endif
#if GBCUDA_USER_KERNELS
  else if constexpr (cuda_user_binary_op<Op, TW>() && one_type) {
    std::optional<Vector<TU>> u_form;
    std::optional<Vector<TV>> v_form;
    const Vector<TU>& up = ub.form() == VectorForm::Sparse ? in_form(ub, VectorForm::Bitmap, u_form) : ub;
    const Vector<TV>& vp = vb.form() == VectorForm::Sparse ? in_form(vb, VectorForm::Bitmap, v_form) : vb;
    cuda_user::ewise(t, pm.view, op, view(up.store()), view(vp.store()), is_union);
  }
#endif
  merge_into(w, pm.view, accum, t, d.replace);
}
}  // namespace detail

}  // namespace gbcuda
