// The start-gate kernel of kernels/gate.h.
#include "kernels/gate.h"

#include "kernels/device_sync.cuh"

namespace arlab::kernels {

// Ranks whose slot in my control block shows round `round` (or later).
__device__ __forceinline__ int ranks_arrived(const LamportControl* c, int nranks, unsigned long long round) {
  int arrived = 0;
  for (int r = 0; r < nranks; ++r) arrived += ld_relaxed_sys(&c->gate_seen[r]) >= round ? 1 : 0;
  return arrived;
}

__global__ void rank_gate_kernel(const GateParams p) {
  volatile LamportControl* c = p.my_control;
  const unsigned long long round = c->gate_generation + 1;
  c->gate_generation = round;
  for (int r = 0; r < p.nranks; ++r) st_relaxed_sys(p.peer_slot[r], round);
  const unsigned long long start = global_timer_ns();
  int arrived = ranks_arrived(p.my_control, p.nranks, round);
  while (arrived < p.nranks) {
    if (global_timer_ns() - start > p.timeout_ns) {
      record_fault(p.fault, encode_fault(WaitKind::gate, p.rank, arrived, 0, 0));  // peer field: ranks seen
      return;
    }
    arrived = ranks_arrived(p.my_control, p.nranks, round);
  }
  if (p.release_ns) *p.release_ns = global_timer_ns();
}

__global__ void host_hold_kernel(const HostHoldParams p) {
  const unsigned long long start = global_timer_ns();
  while (ld_relaxed_sys(p.host_word) != p.target) {
    if (global_timer_ns() - start > p.timeout_ns) {
      record_fault(p.fault, encode_fault(WaitKind::host_hold, p.rank, 0, 0, 0));
      return;
    }
  }
}

cudaError_t launch_gate(const GateParams& params, cudaStream_t stream) {
  rank_gate_kernel<<<1, 1, 0, stream>>>(params);
  return cudaGetLastError();
}

cudaError_t launch_host_hold(const HostHoldParams& params, cudaStream_t stream) {
  host_hold_kernel<<<1, 1, 0, stream>>>(params);
  return cudaGetLastError();
}

}  // namespace arlab::kernels
