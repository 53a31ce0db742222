// The peers' part of a rank's workspace (common/implementations.h: the flashinfer and vllm rows),
// appended after arlab's one-shot and two-shot parts in the same single allocation
// (kernels/lamport_layout.h, kernels/twoshot_layout.h), so the one CUDA IPC handle a multi-process
// node exchanges shares it too. Allocated only when a run asks for a peer (WorkspaceShape::peers).
// The layouts are the libraries' own (read from the pinned flashinfer-python wheel's headers and its
// workspace-creating Python, peers/flashinfer.pin), sized for a slot of `slot_bytes` (one rank's
// largest input):
//
//   flashinfer comm      N x slot_bytes       two-shot: my input copy, then the reduced sums
//   flashinfer barrier   N x 256 x 4 bytes    two-shot barrier flags (zero at the start)
//   flashinfer lamport   3 x N x slot_bytes   one-shot: 3 buffers of N slots of a call's size
//                                             (every element -0.0 at the start); each buffer at
//                                             most kFlashinferLamportBufferMaxBytes
//                                             (common/implementations.h: FlashInfer's clear offset
//                                             is a 32-bit int)
//   flashinfer flags     256 bytes            5 int32: read counter, two-shot flag, Lamport flag,
//                                             Lamport buffer size in bytes, bytes to clear (local)
//   vllm signal          kVllmSignalBytes + slot_bytes   its Signal (barrier counters, zero at the
//                                             start), then its two-stage tmp buffer
//   vllm input           slot_bytes           the registered input buffer: each call's x is copied
//                                             here first (vLLM's registered-buffer path)
//   vllm rank data       256 bytes            its RankData: every rank's vllm input (local)
//
// Pure C++, no CUDA needed.
#pragma once

#include <cstddef>

#include <algorithm>

#include "common/implementations.h"
#include "kernels/lamport_layout.h"
#include "kernels/twoshot_layout.h"

namespace arlab::peers {

// FlashInfer's two-shot barrier flags per rank (trtllm_allreduce_fusion.cuh kBarrierFlagCount).
constexpr size_t kFlashinferBarrierFlags = 256;
// Its control ints (trtllm_ar.py: "kernel_flag_ptr" of 5 int32), in a 256-byte block.
constexpr size_t kFlashinferFlagsBytes = 256;
constexpr int kFlashinferFlagLamportSize = 3;  // the int holding the Lamport buffer size in bytes
// sizeof(vllm::Signal): self_counter[36][8] and peer_counter[2][36][8] of uint32 at 128-byte
// alignment (vllm_custom_all_reduce.cuh); peers/vllm.cu checks it against the header.
constexpr size_t kVllmSignalBytes = 3456;
constexpr size_t kVllmRankDataBytes = 256;  // vllm::RankData: 8 pointers, room to spare

struct PeerLayout {
  size_t offset = 0;            // where the peers' part starts in the allocation
  size_t fi_comm = 0, fi_barrier = 0, fi_lamport = 0, fi_flags = 0;  // offsets in the allocation
  size_t fi_lamport_buffer_bytes = 0;  // one of the 3 Lamport buffers: N x slot_bytes, capped
  size_t vllm_signal = 0, vllm_input = 0, vllm_rank_data = 0;
  size_t total_bytes = 0;       // the whole allocation with the peers' part
};

inline PeerLayout peer_layout(const kernels::LamportLayout& l, int nranks) {
  using kernels::kLayoutAlign;
  using kernels::round_up;
  const size_t n = static_cast<size_t>(nranks);
  PeerLayout p;
  p.offset = round_up(kernels::workspace_bytes(l), kLayoutAlign);
  p.fi_comm = p.offset;
  p.fi_barrier = round_up(p.fi_comm + n * l.slot_bytes, kLayoutAlign);
  p.fi_lamport = round_up(p.fi_barrier + n * kFlashinferBarrierFlags * sizeof(int), kLayoutAlign);
  p.fi_lamport_buffer_bytes = std::min(n * l.slot_bytes, static_cast<size_t>(kFlashinferLamportBufferMaxBytes));
  p.fi_flags = round_up(p.fi_lamport + 3 * p.fi_lamport_buffer_bytes, kLayoutAlign);
  p.vllm_signal = p.fi_flags + kFlashinferFlagsBytes;
  p.vllm_input = round_up(p.vllm_signal + kVllmSignalBytes + l.slot_bytes, kLayoutAlign);
  p.vllm_rank_data = round_up(p.vllm_input + l.slot_bytes, kLayoutAlign);
  p.total_bytes = p.vllm_rank_data + kVllmRankDataBytes;
  return p;
}

}  // namespace arlab::peers
