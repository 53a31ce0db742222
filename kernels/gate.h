// The start gate of a timed iteration (docs/measurement.md): one tiny kernel per rank, enqueued just before
// the fused kernel, so that all ranks' fused kernels start together. Protocol (symmetric push):
// entering round g, a rank stores g into its own slot of EVERY rank's control block (peer stores
// over NVLink on a real node), then spins on its OWN control block until every slot holds >= g.
// Every rank thus polls local memory and learns of the last arrival one one-way store latency
// after it; with a central counter instead (on rank 0's GPU, as arlab first did) rank 0 polled
// locally while the others polled across the link, so the release reached them a round trip
// later and the start skew depended on which rank arrived last (measured on 2 H200s over NVLink:
// start skew 0.45-0.95 us median, varying between processes by up to 6 % of a 9 us kernel). Rounds
// only grow (a peer may already be in round g + 1), so the gate needs no reset between rounds and
// works inside CUDA graphs. The spin is bounded like every other wait (fault kind `gate`).
// Memory ordering: relaxed system-scope stores and loads (the gate orders start times, not data).
//
// The host hold: a gate only aligns the ranks if every rank's fused kernel is already queued
// behind its gate when the gate opens. When the host enqueues slower than the GPU runs (a few
// launches of 2-5 us each per iteration against a 5 us kernel), the GPU drains the queue, the gate
// opens as soon as the last rank's gate is submitted, and that rank's fused kernel is still being
// submitted: its start trails the others' by the host's launch time (measured on an H200 at
// 1 token: a bimodal max-over-ranks duration, p10 5.25 us, p90 8.5 us). The timing loop therefore
// puts one hold kernel at the head of each rank's stream, enqueues a whole batch of gated
// iterations behind it, and only then releases the hold by writing a word in pinned host memory.
// The hold's spin is bounded too (fault kind `host_hold`).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/lamport_layout.h"

namespace arlab::kernels {

struct GateParams {
  LamportControl* my_control = nullptr;        // my round counter (gate_generation) and my slots
  unsigned long long* peer_slot[kMaxRanks] = {};  // rank r's control->gate_seen[my rank], mapped here
  unsigned long long* fault = nullptr;         // my fault word
  unsigned long long timeout_ns = 0;
  int nranks = 0;
  int rank = 0;
  // Optional: where to write the %globaltimer value at which this rank saw the gate open (the
  // release skew across ranks on one GPU is then measurable).
  unsigned long long* release_ns = nullptr;
};

cudaError_t launch_gate(const GateParams& params, cudaStream_t stream);

struct HostHoldParams {
  const uint32_t* host_word = nullptr;      // pinned host memory mapped into the device
  uint32_t target = 0;                      // the hold opens once *host_word == target
  unsigned long long* fault = nullptr;      // my fault word
  unsigned long long timeout_ns = 0;
  int rank = 0;
};

cudaError_t launch_host_hold(const HostHoldParams& params, cudaStream_t stream);

}  // namespace arlab::kernels
