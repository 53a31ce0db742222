// The one-shot Lamport workspace of one rank: what lives where in its single device allocation.
// Shared contract between the kernel (kernels/oneshot_kernel.cuh) and the host that allocates,
// initializes and maps it (harness/workspace.*). Pure C++, no CUDA needed.
//
//   offset 0               LamportControl   (flag, arrival counter, bytes per buffer, gate words)
//   offset kFaultOffset    fault word       (first timeout of this rank, see device_fault.h)
//   offset kRegionOffset   Lamport region:  3 buffers x N slots x slot_bytes
//   (then the two-shot part, kernels/twoshot_layout.h; LamportLayout::total_bytes excludes it)
//
// Slot s of buffer b holds rank s's input of the call that uses buffer b, row-major [tokens, H];
// every byte not yet written by that call is the dtype's -0.0 pattern (the "not arrived" mark).
// The allocation is one cudaMalloc so that a later multi-process node can share it with a single
// CUDA IPC handle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/host_device.h"

namespace arlab::kernels {

constexpr int kMaxRanks = 16;            // largest N of docs/operation.md
constexpr int kLamportBuffers = 3;       // a peer can be at most one call ahead (docs/kernels.md)
constexpr size_t kLayoutAlign = 256;     // cudaMalloc's alignment; keeps every part 16-byte aligned

// Per-rank control block in device memory. Read and advanced by this rank's fused kernel only;
// the gate words are used by the timing gate (kernels/gate.h).
struct LamportControl {
  unsigned long long flag;                          // calls completed; current buffer = flag % 3
  unsigned int arrivals;                            // blocks of the running call that have read flag
  unsigned int reserved;
  unsigned long long bytes_in_buffer[kLamportBuffers];  // per-slot bytes the last user of each buffer wrote
  unsigned long long gate_generation;               // gate rounds this rank has entered
  unsigned long long gate_seen[kMaxRanks];          // slot r: the last gate round rank r announced here
};

constexpr size_t kFaultOffset = kLayoutAlign;
constexpr size_t kRegionOffset = 2 * kLayoutAlign;
static_assert(sizeof(LamportControl) <= kFaultOffset, "control block must fit before the fault word");

ARLAB_HD constexpr size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

struct LamportLayout {
  size_t slot_bytes = 0;     // one rank's input for up to max_tokens x max_hidden elements
  size_t buffer_bytes = 0;   // N slots
  size_t region_bytes = 0;   // 3 buffers
  size_t total_bytes = 0;    // control + fault word + region
};

// Sizes for a workspace that holds calls of up to max_tokens x max_hidden elements of elem_bytes.
inline LamportLayout lamport_layout(long long max_tokens, long long max_hidden, int nranks, int elem_bytes) {
  LamportLayout l;
  l.slot_bytes = round_up(static_cast<size_t>(max_tokens) * static_cast<size_t>(max_hidden) *
                              static_cast<size_t>(elem_bytes),
                          kLayoutAlign);
  l.buffer_bytes = l.slot_bytes * static_cast<size_t>(nranks);
  l.region_bytes = l.buffer_bytes * kLamportBuffers;
  l.total_bytes = kRegionOffset + l.region_bytes;
  return l;
}

}  // namespace arlab::kernels
