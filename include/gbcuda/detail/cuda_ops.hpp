#pragma once
// Declarations of the CUDA backend's primitives (see backend_ops.hpp for their contract).
// Definitions: lib/cuda/*.cu, explicitly instantiated for the combinations that
// cuda_supports_*() accept. Only called when GBCUDA_HAVE_CUDA.
#include "gbcuda/detail/backend_ops.hpp"

namespace gbcuda::detail::cuda {

template <class S, class TA, class TU>
void gather(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& rows,
            const VecView<TU>& u, bool u_first);
template <class S, class TA, class TU>
void scatter(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& cols,
             const VecView<TU>& u, bool u_first);
template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace);
template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& accum, T s, bool replace);
template <class Op, class TU>
void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u);
template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union);
template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u);
template <class M>
void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural);

// Vector form conversion on the device (used by detail::convert_form / sort_indices).
template <class T> void convert_form(VectorStore<T>& v, VectorForm to);
template <class T> void sort_indices(VectorStore<T>& v);

// True when two device buffers hold the same bytes (size a multiple of 4).
bool device_bytes_equal(const void* a, const void* b, std::size_t bytes);

// CSR transpose on the device (CUB radix sort by column; stable, so rows stay sorted).
template <class T> Csr<T> transpose_csr(const Csr<T>& a);

}  // namespace gbcuda::detail::cuda
