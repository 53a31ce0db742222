// Device-side primitives of the cross-rank protocols, one definition each: 16-byte loads and
// stores with explicit memory-model semantics and the release / acquire flag accesses (PTX inline
// asm, so the compiler can neither cache, merge nor reorder them), the %globaltimer clock that
// bounds every spin-wait, the fault-word writer, and programmatic dependent launch controls. Used by
// the one-shot kernel (Lamport push and poll), the two-shot kernel (its cross-rank barrier), the
// timing gate and the host hold.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device_fault.h"

namespace arlab::kernels {

// Polling load: relaxed at system scope, so it observes stores of other ranks (also other GPUs
// over NVLink) and is never served from a stale L1 line.
__device__ __forceinline__ uint4 ld_relaxed_sys_v4(const void* p) {
  uint4 v;
  asm volatile("ld.relaxed.sys.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

// Push store into a peer's receive buffer: relaxed at system scope (a strong store, so the racing
// polling load of the owner is a well-defined morally-strong pair in the PTX memory model).
__device__ __forceinline__ void st_relaxed_sys_v4(void* p, const uint4& v) {
  asm volatile("st.relaxed.sys.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

// Read-only input load through the non-coherent path (inputs do not change during the kernel).
#if ARLAB_PROBE_PLAIN_INPUT_LOADS
// Probe build only (ARLAB_KERNEL_PROBE=plain_input_loads, docs/kernels.md "The faithful reference"): a
// plain load instead, as the library loads its inputs (ld.global, not ld.global.nc).
__device__ __forceinline__ uint4 ld_input_v4(const void* p) { return *reinterpret_cast<const uint4*>(p); }
#else
__device__ __forceinline__ uint4 ld_input_v4(const void* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
#endif

__device__ __forceinline__ void st_v4(void* p, const uint4& v) { *reinterpret_cast<uint4*>(p) = v; }

__device__ __forceinline__ unsigned long long ld_volatile_u64(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

// Flag publication: a release store at system scope makes every store this thread ordered before
// it (cumulatively, e.g. through __syncthreads) visible to whoever acquires the flag, on any GPU.
__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Flag observation: an acquire load at system scope; loads after it see what the releasing writer
// published (the two-shot barrier flags).
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Flag accesses that order nothing else (the timing gate's arrival slots, the host hold's word):
// relaxed at system scope, so they see other ranks' and the host's stores and are never cached or
// merged.
__device__ __forceinline__ uint32_t ld_relaxed_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed_sys(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// A fence with acquire-release semantics at GPU scope: with a relaxed atomic after it, a release;
// before later accesses, an acquire (lighter than __threadfence(), which is sequentially consistent).
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Transaction barriers in shared memory (sm_90 mbarrier objects): the lean kernel's pushed cluster
// exchange (kernels/fused_epilogue.cuh cluster_sum_pushed). Addresses are 32-bit shared-window
// addresses (__cvta_generic_to_shared). Semantics from the PTX ISA, "Parallel Synchronization and
// Communication Instructions: mbarrier" and "st.async".
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Initialises the mbarrier at `bar` for `count` arrivals per phase (phase 0, tx-count 0).
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes this thread's earlier mbarrier.init visible to the other blocks of the cluster once they have
// passed a cluster barrier this thread arrived at after it (a light fence: no wait for global stores).
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// One arrival on `bar` that also expects `bytes` more of transaction data in the current phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// True once the phase of parity `phase` of `bar` has completed (acquire at cluster scope: the data
// other blocks stored into this block with st.async before completing the phase is visible after).
// The hardware may suspend the thread for a while before it returns false.
__device__ __forceinline__ bool mbarrier_try_wait_parity(unsigned bar, unsigned phase) {
  unsigned done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(phase)
      : "memory");
  return done != 0u;
}
// The address `local` (of my shared memory) has in block `block` of my cluster.
__device__ __forceinline__ unsigned cluster_map_shared(unsigned local, unsigned block) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(block));
  return remote;
}
// Stores 8 bytes into another block's shared memory (`remote`, a shared::cluster address) and
// completes 8 bytes of transaction on that block's mbarrier `remote_bar` once they are there: the
// receiver waits on its own barrier, with no fence and no barrier on the sender's side.
__device__ __forceinline__ void st_async_u64(unsigned remote, unsigned long long value, unsigned remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u64 [%0], %1, [%2];" ::"r"(remote),
               "l"(value), "r"(remote_bar)
               : "memory");
}

// The two halves of a cluster barrier: arrive (release: my earlier stores, e.g. shared-memory
// initialisation, happen before whatever another block does after its wait) and wait (acquire).
// Not .aligned, so threads may reach them at different points of divergent code.
__device__ __forceinline__ void cluster_arrive_release() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait_acquire() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory"); }
// A cluster barrier that only keeps every block alive until all have arrived (no memory order: the
// arrival is relaxed, so it does not wait for this thread's outstanding stores as a release does).
__device__ __forceinline__ void cluster_lifetime_barrier() {
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// First writer wins; returns true when this call's fault is the one recorded.
__device__ __forceinline__ bool record_fault(unsigned long long* fault_word, unsigned long long code) {
  return atomicCAS(fault_word, 0ull, code) == 0ull;
}

// Programmatic dependent launch (sm_90): wait for the previous kernel in the stream (a no-op when
// the launch was not programmatic), and allow the next one to start its prologue.
__device__ __forceinline__ void pdl_wait_for_prerequisites() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

}  // namespace arlab::kernels
