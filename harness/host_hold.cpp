// The host hold (harness/host_hold.h).
#include "harness/host_hold.h"

#include <atomic>
#include <exception>

#include "harness/check.h"

namespace arlab::harness {

HostHold::HostHold() : buffer_(sizeof(unsigned int)), word_(buffer_.as<unsigned int>()) {
  *word_ = 0;
  void* d = nullptr;
  ARLAB_CUDA_CHECK(cudaHostGetDevicePointer(&d, word_, 0));
  device_word_ = static_cast<const unsigned int*>(d);
}

HostHold::~HostHold() {
  release();
  if (std::uncaught_exceptions() > 0) buffer_.abandon();
}

void HostHold::arm(Node& node) {
  ++target_;
  for (int r : node.local_ranks()) node.rank(r).launch_host_hold(device_word_, target_, node.timeout_ns());
}

void HostHold::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // everything enqueued before the word flips
  *static_cast<volatile unsigned int*>(word_) = target_;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void HostHold::preload(Node& node) {
  release();
  for (int r : node.local_ranks()) node.rank(r).launch_host_hold(device_word_, target_, node.timeout_ns());
}

}  // namespace arlab::harness
