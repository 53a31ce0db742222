// The fault word: how a bounded spin-wait that timed out on the device tells the host who gave up
// and what it was waiting for (docs/errors.md). One 64-bit word per rank in its workspace; the first
// writer wins (atomicCAS from 0), later timeouts leave it alone. The host reads it after a
// synchronize and raises an error naming rank, block and the awaited thing.
//
// Bit layout (63..0):  kind:4 | rank:8 | peer:8 | block:20 | token:24
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace arlab::kernels {

enum class WaitKind : unsigned {
  none = 0,
  peer_data = 1,  // one-shot poll: a peer's vector of a token never arrived in my Lamport buffer
  gate = 2,       // timing gate: not every rank arrived at the start line
  barrier = 3,    // two-shot barrier: block `block` of rank `peer` never announced barrier `token` (1 or 2)
  host_hold = 4,  // timing batch: the host never released the hold at the head of this rank's stream
  cluster_total = 5,  // lean epilogue: block `peer` of my cluster never delivered its partial sum for token `token`
};

struct FaultInfo {
  WaitKind kind = WaitKind::none;
  int rank = 0;   // rank that timed out
  int peer = 0;   // rank it waited for (peer_data) / ranks that had arrived (gate)
  int block = 0;  // blockIdx.x of the waiting block
  int token = 0;  // token whose data was awaited (peer_data) / barrier 1 or 2 (barrier)
};

constexpr unsigned long long kFaultFieldMask4 = 0xFull;
constexpr unsigned long long kFaultFieldMask8 = 0xFFull;
constexpr unsigned long long kFaultFieldMask20 = 0xFFFFFull;
constexpr unsigned long long kFaultFieldMask24 = 0xFFFFFFull;

ARLAB_HD constexpr unsigned long long encode_fault(WaitKind kind, int rank, int peer, int block, int token) {
  return ((static_cast<unsigned long long>(kind) & kFaultFieldMask4) << 60) |
         ((static_cast<unsigned long long>(rank) & kFaultFieldMask8) << 52) |
         ((static_cast<unsigned long long>(peer) & kFaultFieldMask8) << 44) |
         ((static_cast<unsigned long long>(block) & kFaultFieldMask20) << 24) |
         (static_cast<unsigned long long>(token) & kFaultFieldMask24);
}

ARLAB_HD constexpr FaultInfo decode_fault(unsigned long long w) {
  FaultInfo f;
  f.kind = static_cast<WaitKind>((w >> 60) & kFaultFieldMask4);
  f.rank = static_cast<int>((w >> 52) & kFaultFieldMask8);
  f.peer = static_cast<int>((w >> 44) & kFaultFieldMask8);
  f.block = static_cast<int>((w >> 24) & kFaultFieldMask20);
  f.token = static_cast<int>(w & kFaultFieldMask24);
  return f;
}

}  // namespace arlab::kernels
