// The host hold of a timed batch (kernels/gate.h): a word in pinned, mapped host memory that holds
// every local rank's stream until the host has queued a whole batch behind it, then opens when the
// host writes it. Used by the timing loop (harness/timing.cpp) and the calibrate benches that start
// ranks together (calibrate/cross_rank_benches.cu). Each arm() expects the next value, so the word
// never needs a reset.
#pragma once

#include "harness/cuda_resources.h"
#include "harness/node.h"

namespace arlab::harness {

class HostHold {
 public:
  HostHold();
  // A hold still armed (an exception between arm and release) opens instead of timing out. While
  // an exception unwinds, the word is leaked, not freed: cudaFreeHost waits for the device, which may
  // be running a batch whose waits each take up to --timeout-ms (a failure must end in seconds).
  ~HostHold();
  HostHold(const HostHold&) = delete;
  HostHold& operator=(const HostHold&) = delete;

  // Enqueues a hold at the head of every local rank's stream.
  void arm(Node& node);
  // Opens every hold armed so far (everything the host enqueued before is ordered before the write).
  void release();
  // Enqueues a hold that is open already on every local rank: loads the hold kernel into each rank's
  // context (lazy module loading) without waiting for anything.
  void preload(Node& node);

 private:
  MappedPinnedBuffer buffer_;
  unsigned int* word_ = nullptr;
  const unsigned int* device_word_ = nullptr;
  unsigned int target_ = 0;
};

}  // namespace arlab::harness
