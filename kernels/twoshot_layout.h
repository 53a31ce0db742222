// The two-shot part of a rank's workspace (docs/kernels.md), appended to the one-shot Lamport layout in
// the same single allocation (kernels/lamport_layout.h), so one CUDA IPC handle still shares it all:
//
//   twoshot_offset + 0                 barrier flags  u32 [kMaxRanks][kMaxTwoShotBlocks]
//                                      flags[s][b] = the last barrier value block b of rank s
//                                      announced to this rank (written by rank s, read by me)
//   twoshot_offset + kTwoshotEpochOff  block epochs   u32 [kMaxTwoShotBlocks]
//                                      barrier values block b of this rank has used so far
//                                      (read and written by my block b only)
//   twoshot_offset + kTwoshotCommOff   comm buffer    [max_tokens, max_hidden] elements
//                                      my input copy, then (in place) the reduced sums of every
//                                      rank's token range
//
// Flags and epochs start at zero (LamportWorkspace::initialize) and only ever grow by one per
// barrier (modulo 2^32); the comm buffer needs no initial value. Pure C++, no CUDA needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/launch_limits.h"
#include "kernels/lamport_layout.h"

namespace arlab::kernels {

// One flag slot per block and peer: kMaxTwoShotBlocks (common/launch_limits.h) bounds two-shot grids.
constexpr size_t kTwoshotFlagsBytes = sizeof(uint32_t) * kMaxRanks * kMaxTwoShotBlocks;  // 64 KiB
constexpr size_t kTwoshotEpochOffset = kTwoshotFlagsBytes;
constexpr size_t kTwoshotSyncBytes = round_up(kTwoshotFlagsBytes + sizeof(uint32_t) * kMaxTwoShotBlocks, kLayoutAlign);
constexpr size_t kTwoshotCommOffset = kTwoshotSyncBytes;

#if ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
// Probe build only (CMake ARLAB_KERNEL_PROBE=library_twoshot_layout, docs/kernels.md "The faithful
// reference"): the comm buffer twice over, the reduced sums in the second copy, as the library keeps them.
constexpr size_t kTwoshotCommCopies = 2;
#else
constexpr size_t kTwoshotCommCopies = 1;
#endif

// Bytes of the two-shot part for a comm buffer of comm_bytes (= the Lamport slot size).
constexpr size_t twoshot_area_bytes(size_t comm_bytes) { return kTwoshotSyncBytes + kTwoshotCommCopies * comm_bytes; }

// Where the two-shot part starts in a workspace whose Lamport part has layout `l` (right after the
// Lamport region, so 256-byte aligned), and the size of the whole allocation.
inline size_t twoshot_offset(const LamportLayout& l) { return l.total_bytes; }
inline size_t workspace_bytes(const LamportLayout& l) { return l.total_bytes + twoshot_area_bytes(l.slot_bytes); }

// The two-shot view of the workspaces, as the kernel sees it (part of FusedParams).
struct TwoshotView {
  void* comm[kMaxRanks] = {};          // every rank's comm buffer, mapped into this process
  uint32_t* flags[kMaxRanks] = {};     // every rank's barrier flags, mapped into this process
  uint32_t* my_flags = nullptr;        // flags[rank] (kept apart: the wait loop indexes it by peer)
  uint32_t* block_epoch = nullptr;     // my block epochs
  void* my_comm = nullptr;             // comm[rank]
};

}  // namespace arlab::kernels
