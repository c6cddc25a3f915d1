// The communicators of partitioned.hpp: loopback (the ranks are threads of this process sharing
// its memory) and NCCL (one GPU a rank, ncclCommInitAll).
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gbcuda/context.hpp"
#include "gbcuda/partitioned.hpp"
#include "partitioned/group.hpp"

#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if GBCUDA_HAVE_NCCL
#include <nccl.h>
#endif

namespace gbcuda {

const char* to_string(Transport t) { return t == Transport::Nccl ? "nccl" : "loopback"; }

Transport parse_transport(const std::string& name) {
  if (name == "loopback") return Transport::Loopback;
  if (name == "nccl") return Transport::Nccl;
  throw Error(Status::InvalidValue, "unknown transport '" + name + "' (loopback or nccl)");
}

bool nccl_available() { return GBCUDA_HAVE_NCCL != 0; }

void Communicator::allgather_and_sum(const std::uint32_t* send, std::uint32_t* recv, std::size_t words,
                                     const std::uint64_t* sum_in, std::uint64_t* sum_out, int count) {
  allgather(send, recv, words);
  std::vector<std::uint64_t> values(static_cast<std::size_t>(count));
  detail::copy_bytes(values.data(), Backend::Host, sum_in, memory(), values.size() * sizeof(std::uint64_t));
  allreduce_sum(values.data(), count);
  detail::copy_bytes(sum_out, memory(), values.data(), Backend::Host, values.size() * sizeof(std::uint64_t));
}

namespace detail::partitioned {

void Group::barrier() {
  std::unique_lock lock(mu_);
  if (failed_) throw PeerFailed();
  const std::uint64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != generation || failed_; });
  if (failed_) throw PeerFailed();
}

void Group::fail() noexcept {
  std::lock_guard lock(mu_);
  failed_ = true;
  cv_.notify_all();
}

bool Group::failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

namespace {

class LoopbackCommunicator final : public Communicator {
 public:
  LoopbackCommunicator(std::shared_ptr<Group> group, int rank, Backend where, int device)
      : group_(std::move(group)), rank_(rank), where_(where), device_(device) {}
  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  Backend memory() const override { return where_; }
  int device() const override { return device_; }
  void abort() noexcept override { group_->fail(); }

  void allgather(const std::uint32_t* send, std::uint32_t* recv, std::size_t words) override {
    synchronize(where_);  // send is complete before the others read it
    group_->sends[std::size_t(rank_)] = send;
    group_->barrier();
    for (int r = 0; r < size(); ++r)
      detail::copy_bytes(recv + std::size_t(r) * words, where_, group_->sends[std::size_t(r)], where_,
                         words * sizeof(std::uint32_t));
    synchronize(where_);
    group_->barrier();  // every rank has read every send: they may change again
  }

  void allreduce_sum(std::uint64_t* values, int count) override {
    group_->inputs[std::size_t(rank_)] = values;
    group_->barrier();
    std::vector<std::uint64_t> sum(std::size_t(count), 0);
    for (int r = 0; r < size(); ++r)
      for (int i = 0; i < count; ++i) sum[std::size_t(i)] += group_->inputs[std::size_t(r)][i];
    group_->barrier();  // every rank has read every input before any is overwritten
    for (int i = 0; i < count; ++i) values[i] = sum[std::size_t(i)];
  }

 private:
  std::shared_ptr<Group> group_;
  int rank_;
  Backend where_;
  int device_;
};

#if GBCUDA_HAVE_NCCL
void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(Status::CudaError, std::string(what) + " failed: " + ncclGetErrorString(r));
}

// The NCCL communicators of one group, aborted together when a rank fails (ncclCommAbort ends the
// collectives the other ranks wait in).
struct NcclGroup : Group {
  explicit NcclGroup(int size) : Group(size), comms(std::size_t(size), nullptr) {}
  ~NcclGroup() override {
    for (ncclComm_t c : comms)
      if (c) (aborted ? ncclCommAbort(c) : ncclCommDestroy(c));
  }
  void abort_all() noexcept {
    std::lock_guard lock(abort_mu);
    fail();
    if (aborted) return;
    aborted = true;
    for (ncclComm_t c : comms)
      if (c) ncclCommAbort(c);
  }
  std::vector<ncclComm_t> comms;
  std::mutex abort_mu;
  bool aborted = false;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclGroup> group, int rank, int device)
      : group_(std::move(group)), rank_(rank), device_(device) {}
  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  Backend memory() const override { return Backend::Cuda; }
  int device() const override { return device_; }
  void abort() noexcept override { group_->abort_all(); }

  void allgather(const std::uint32_t* send, std::uint32_t* recv, std::size_t words) override {
    auto s = static_cast<cudaStream_t>(detail::library_stream());
    nccl_check(ncclAllGather(send, recv, words, ncclUint32, comm(), s), "ncclAllGather");
    finish(s);
  }

  // One group, enqueued: the level loop waits for it with its report of the level.
  void allgather_and_sum(const std::uint32_t* send, std::uint32_t* recv, std::size_t words, const std::uint64_t* sum_in,
                         std::uint64_t* sum_out, int count) override {
    auto s = static_cast<cudaStream_t>(detail::library_stream());
    const ncclComm_t c = comm();
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    const ncclResult_t gathered = ncclAllGather(send, recv, words, ncclUint32, c, s);
    const ncclResult_t summed = ncclAllReduce(sum_in, sum_out, std::size_t(count), ncclUint64, ncclSum, c, s);
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    nccl_check(gathered, "ncclAllGather");
    nccl_check(summed, "ncclAllReduce");
  }

  void allreduce_sum(std::uint64_t* values, int count) override {
    if (scratch_.size() < std::size_t(count))
      scratch_ = detail::Array<std::uint64_t>(std::size_t(count), Backend::Cuda);
    detail::copy_bytes(scratch_.data(), Backend::Cuda, values, Backend::Host,
                       std::size_t(count) * sizeof(std::uint64_t));
    auto s = static_cast<cudaStream_t>(detail::library_stream());
    nccl_check(ncclAllReduce(scratch_.data(), scratch_.data(), std::size_t(count), ncclUint64, ncclSum, comm(), s),
               "ncclAllReduce");
    finish(s);
    detail::copy_bytes(values, Backend::Host, scratch_.data(), Backend::Cuda,
                       std::size_t(count) * sizeof(std::uint64_t));
  }

 private:
  ncclComm_t comm() const {
    if (group_->failed()) throw PeerFailed();
    return group_->comms[std::size_t(rank_)];
  }
  void finish(cudaStream_t s) {
    const cudaError_t e = cudaStreamSynchronize(s);
    if (group_->failed()) throw PeerFailed();
    if (e != cudaSuccess) throw Error(Status::CudaError, std::string("NCCL collective: ") + cudaGetErrorString(e));
  }
  std::shared_ptr<NcclGroup> group_;
  int rank_;
  int device_;
  detail::Array<std::uint64_t> scratch_;
};
#endif

}  // namespace
}  // namespace detail::partitioned

std::vector<std::unique_ptr<Communicator>> make_communicators(Transport transport, int parts, Backend where,
                                                              const std::vector<int>& gpus) {
  using namespace detail::partitioned;
  if (parts < 1)
    throw Error(Status::InvalidValue, "a partitioned run needs at least 1 part, not " + std::to_string(parts));
  std::vector<std::unique_ptr<Communicator>> out;
  if (transport == Transport::Loopback) {
    if (!gpus.empty())
      throw Error(Status::InvalidValue, "the loopback transport runs every part on one device: no GPU list");
    int device = -1;
#if GBCUDA_HAVE_CUDA
    if (where == Backend::Cuda && cudaGetDevice(&device) != cudaSuccess)
      throw Error(Status::NoDevice, "the loopback transport on the GPU: no CUDA device");
#endif
    if (where == Backend::Cuda) (void)resolve_device(Device::Cuda);  // throws NoDevice in a build without CUDA
    auto group = std::make_shared<Group>(parts);
    for (int r = 0; r < parts; ++r) out.push_back(std::make_unique<LoopbackCommunicator>(group, r, where, device));
    return out;
  }
  if (where != Backend::Cuda) throw Error(Status::InvalidValue, "the nccl transport runs on GPUs only (device cuda)");
#if GBCUDA_HAVE_NCCL
  std::vector<int> devices = gpus;
  if (devices.empty())
    for (int r = 0; r < parts; ++r) devices.push_back(r);
  if (int(devices.size()) != parts)
    throw Error(Status::InvalidValue, "the nccl transport: " + std::to_string(parts) + " parts but " +
                                          std::to_string(devices.size()) + " GPUs listed");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  if (std::set<int>(devices.begin(), devices.end()).size() != devices.size())
    throw Error(Status::InvalidValue, "the nccl transport: a GPU is listed twice (one part a GPU)");
  for (int d : devices)
    if (d < 0 || d >= count)
      throw Error(Status::NoDevice,
                  "the nccl transport: GPU " + std::to_string(d) + " asked for, " + std::to_string(count) + " visible");
  auto group = std::make_shared<NcclGroup>(parts);
  nccl_check(ncclCommInitAll(group->comms.data(), parts, devices.data()), "ncclCommInitAll");
  for (int r = 0; r < parts; ++r) out.push_back(std::make_unique<NcclCommunicator>(group, r, devices[std::size_t(r)]));
  return out;
#else
  (void)gpus;
  throw Error(Status::NotImplemented, "this copy of gbcuda was built without NCCL: use the loopback transport");
#endif
}

}  // namespace gbcuda
