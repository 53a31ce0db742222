// Kernel durations from CUPTI activity records (docs/measurement.md: the precise source; start and end of
// every kernel on the GPU's own clock, per green context). The caller tags each launch it wants
// timed (set_tag before the launch call, clear_tag after); CUPTI callbacks record the correlation
// id of every launch made under a tag -- cudaLaunchKernelExC (runtime API) and cuLaunchKernel[Ex]
// (driver API, how NCCL launches) -- and collect() joins CUPTI's concurrent-kernel records to the
// tags through those correlation ids. Several kernels may share a tag (a baseline's two steps).
//
// CUPTI's activity buffers are handed over by callbacks without a user pointer, so the completed
// buffers pass through one function-local sink in cupti_timer.cpp: the one piece of process-global
// state in arlab, forced by that C API. Only one CuptiKernelTimer may exist at a time (CUPTI allows
// one subscriber per process; the constructor refuses a second).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace arlab::harness {

struct KernelInterval {
  uint64_t tag = 0;
  uint64_t start_ns = 0, end_ns = 0;
  int registers_per_thread = 0;
  std::string name;  // the kernel's (mangled) name as CUPTI reports it, e.g. NCCL's ncclDevKernel_..._RING_LL
};

class CuptiKernelTimer {
 public:
  // Subscribes to the launch callbacks and enables concurrent-kernel records. Throws CudaError when
  // CUPTI is unavailable (the caller then falls back to CUDA events) or another timer exists.
  CuptiKernelTimer();
  ~CuptiKernelTimer();
  CuptiKernelTimer(const CuptiKernelTimer&) = delete;
  CuptiKernelTimer& operator=(const CuptiKernelTimer&) = delete;

  // Launches made by this thread between set_tag and clear_tag are timed under `tag`.
  void set_tag(uint64_t tag);
  void clear_tag();
  // Flushes CUPTI (call after the device is idle) and returns the tagged kernels launched since the
  // last collect(), in any order. Untagged kernels are dropped.
  std::vector<KernelInterval> collect();
  // What the last collect() saw, for diagnostics: kernel records, tagged launches.
  size_t last_kernel_records() const;
  size_t last_tagged_launches() const;

  struct State;  // shared with the CUPTI callback (its user pointer)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace arlab::harness
