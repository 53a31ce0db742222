// One rank's workspace (layout in kernels/lamport_layout.h and kernels/twoshot_layout.h): a single
// cudaMalloc allocation (so a multi-process node shares it with one CUDA IPC handle) holding the
// control block, the fault word, the 3 x N-slot Lamport region of the one-shot kernel and the
// two-shot part (barrier flags, block epochs, comm buffer of one slot's size). Sized from the largest call it
// must hold (max tokens x max hidden x element bytes) and N; "formatted" for one dtype, because the
// "not arrived" mark is that dtype's -0.0 pattern. initialize() is how it starts, how it changes
// dtype and how it recovers after a fault.
#pragma once

#include <cuda_runtime.h>

#include "common/problem.h"
#include "harness/cuda_resources.h"
#include "kernels/lamport_layout.h"
#include "kernels/twoshot_layout.h"
#include "peers/peer_layout.h"

namespace arlab::harness {

struct WorkspaceShape {
  int max_tokens = 0;
  int max_hidden = 0;
  int nranks = 0;
  int max_elem_bytes = 2;  // 2: bf16/fp16 only; 4: also fp32
  bool peers = false;      // the peers' part too (peers/peer_layout.h)
};

class LamportWorkspace {
 public:
  // Throws InvalidArgument for a non-positive size or N outside {2,4,8,16}; CudaError when the
  // allocation fails.
  LamportWorkspace(const WorkspaceShape& shape, int rank);

  const WorkspaceShape& shape() const { return shape_; }
  const kernels::LamportLayout& layout() const { return layout_; }
  // The peers' part (valid when shape().peers).
  const peers::PeerLayout& peer_layout() const { return peer_layout_; }
  void* base() const { return mem_.data(); }  // the whole allocation (what IPC would share)
  size_t bytes() const { return mem_.bytes(); }
  kernels::LamportControl* control() const { return mem_.as<kernels::LamportControl>(); }
  unsigned long long* fault_word() const {
    return reinterpret_cast<unsigned long long*>(mem_.as<char>() + kernels::kFaultOffset);
  }

  // Tokens of `hidden` elements of `dtype` one slot holds.
  long long token_capacity(int hidden, DType dtype) const;

  // Asynchronous on `stream`: control block, fault word, two-shot flags and epochs to zero, every
  // Lamport buffer to dtype's -0.0; with the peers' part, FlashInfer's barrier flags and control
  // ints to zero (its Lamport buffer size set), its Lamport buffers to dtype's -0.0, vLLM's signal
  // to zero.
  void initialize(DType dtype, cudaStream_t stream);

 private:
  WorkspaceShape shape_;
  int rank_;
  kernels::LamportLayout layout_;
  peers::PeerLayout peer_layout_;
  DeviceBuffer mem_;
};

// The Lamport region inside a (possibly peer-mapped) workspace allocation.
inline void* lamport_region(void* workspace_base) {
  return static_cast<char*>(workspace_base) + kernels::kRegionOffset;
}

// The two-shot parts inside a (possibly peer-mapped) workspace allocation of Lamport layout `l`.
inline uint32_t* twoshot_flags(void* workspace_base, const kernels::LamportLayout& l) {
  return reinterpret_cast<uint32_t*>(static_cast<char*>(workspace_base) + kernels::twoshot_offset(l));
}
inline uint32_t* twoshot_block_epochs(void* workspace_base, const kernels::LamportLayout& l) {
  return reinterpret_cast<uint32_t*>(static_cast<char*>(workspace_base) + kernels::twoshot_offset(l) +
                                     kernels::kTwoshotEpochOffset);
}
inline void* twoshot_comm(void* workspace_base, const kernels::LamportLayout& l) {
  return static_cast<char*>(workspace_base) + kernels::twoshot_offset(l) + kernels::kTwoshotCommOffset;
}

// The dtype's -0.0 as a 32-bit fill pattern (two 16-bit elements, or one fp32).
uint32_t negative_zero_fill(DType dtype);

}  // namespace arlab::harness
