#pragma once
// Ordering device work between host threads.
//
// Every CUDA operation is enqueued on the calling host thread's own stream (library_stream()), so
// threads working on distinct objects run concurrently. An object that holds device memory
// (a Vector, a Matrix's device copy) keeps a StreamUse: the stream that last wrote it and the
// other streams that read it since. Before a thread reads the object, its stream waits for the
// last write when that was on another stream; before it writes or frees the object, its stream
// waits for the last write and for every read on other streams. So an object can be handed from
// one thread to another with ordinary host synchronisation (a join, a mutex, a promise), and its
// memory is reused only after every stream that touched it is done with it. In a program with
// one thread every check finds its own stream and does nothing.
#include <atomic>
#include <cstdint>

namespace gbcuda::detail {

class StreamUse {
 public:
  StreamUse() = default;
  StreamUse(const StreamUse&) = delete;
  StreamUse& operator=(const StreamUse&) = delete;
  // Takes o's record along with the data it describes; o is left with none.
  StreamUse(StreamUse&& o) noexcept { take(o); }
  StreamUse& operator=(StreamUse&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }

  // The calling thread's stream has just written the object (created or replaced its memory).
  // Throws only where the thread's first use of the GPU cannot get memory for its stream.
  void wrote();
  // Before the calling thread reads the object's device memory. Safe from many threads at once.
  void before_read() const;
  // Before the calling thread writes or frees the object's device memory (one thread at a time,
  // with no concurrent reader): its stream waits for all earlier use and becomes the writer.
  void before_write();
  // before_write() for destructors: errors (a runtime already shut down) are ignored.
  void before_free() noexcept;

 private:
  static constexpr int kReaders = 6;
  void take(StreamUse& o) noexcept;
  void lock() const noexcept;
  void unlock() const noexcept { busy_.store(false, std::memory_order_release); }

  mutable std::atomic<void*> writer_{nullptr};
  mutable std::atomic<bool> busy_{false};         // guards readers_ and overflow_
  mutable std::atomic<bool> has_readers_{false};  // some stream other than the writer read it
  mutable void* readers_[kReaders] = {};
  mutable bool overflow_ = false;  // more readers than slots: a write waits for every stream
};

}  // namespace gbcuda::detail
