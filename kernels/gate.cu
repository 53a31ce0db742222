// The start-gate kernel of kernels/gate.h.
#include "kernels/gate.h"

#include "kernels/device_sync.cuh"

namespace arlab::kernels {

__device__ __forceinline__ unsigned long long ld_acquire_sys_u64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__global__ void rank_gate_kernel(const GateParams p) {
  volatile LamportControl* c = p.my_control;
  const unsigned long long round = c->gate_generation + 1;
  c->gate_generation = round;
  const unsigned long long target = round * static_cast<unsigned long long>(p.nranks);
  atomicAdd_system(p.arrivals, 1ull);
  const unsigned long long start = global_timer_ns();
  unsigned long long seen = ld_acquire_sys_u64(p.arrivals);
  while (seen < target) {
    if (global_timer_ns() - start > p.timeout_ns) {
      // peer field: how many ranks had arrived at this round
      const unsigned long long arrived = seen - (round - 1) * static_cast<unsigned long long>(p.nranks);
      record_fault(p.fault, encode_fault(WaitKind::gate, p.rank, static_cast<int>(arrived), 0, 0));
      return;
    }
    seen = ld_acquire_sys_u64(p.arrivals);
  }
  if (p.release_ns) *p.release_ns = global_timer_ns();
}

__device__ __forceinline__ unsigned int ld_relaxed_sys_u32(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void host_hold_kernel(const HostHoldParams p) {
  const unsigned long long start = global_timer_ns();
  while (ld_relaxed_sys_u32(p.host_word) != p.target) {
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
