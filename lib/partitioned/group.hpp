#pragma once
// What the ranks of one communicator group share in this process: a barrier that a failing rank
// can break (Group::fail: every waiting and later barrier throws), and the loopback's exchange
// slots (rank r's buffer at index r).
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail::partitioned {

// What a rank's collective throws when another rank has failed (that rank reports its own error).
struct PeerFailed : Error {
  PeerFailed() : Error(Status::InvalidValue, "another part of the partitioned search failed") {}
};

class Group {
 public:
  explicit Group(int size) : sends(std::size_t(size), nullptr), inputs(std::size_t(size), nullptr), size_(size) {}
  virtual ~Group() = default;
  int size() const { return size_; }
  // Returns once every rank has arrived; throws Error when a rank has failed.
  void barrier();
  void fail() noexcept;
  bool failed() const;

  std::vector<const std::uint32_t*> sends;   // loopback allgather
  std::vector<const std::uint64_t*> inputs;  // loopback allreduce

 private:
  int size_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  bool failed_ = false;
};

}  // namespace gbcuda::detail::partitioned
