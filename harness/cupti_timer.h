// Kernel durations from CUPTI activity records (DESIGN §6: the precise source; start and end of
// every kernel on the GPU's own clock, per green context). The caller tags each launch it wants
// timed with an external correlation id (push before the launch call, pop after); collect() joins
// CUPTI's kernel records to those ids through CUPTI's correlation records.
//
// CUPTI's activity API is process-wide and its buffer callbacks carry no user pointer, so the
// completed buffers are handed over through one function-local sink in cupti_timer.cpp: the one
// piece of process-global state in arlab, forced by that C API. Only one CuptiKernelTimer may
// exist at a time (the constructor refuses a second).
#pragma once

#include <cstdint>
#include <vector>

namespace arlab::harness {

struct KernelInterval {
  uint64_t external_id = 0;
  uint64_t start_ns = 0, end_ns = 0;
  int registers_per_thread = 0;
};

class CuptiKernelTimer {
 public:
  // Enables concurrent-kernel and external-correlation records. Throws CudaError when CUPTI is
  // unavailable (the caller then falls back to CUDA events) or another timer exists.
  CuptiKernelTimer();
  ~CuptiKernelTimer();
  CuptiKernelTimer(const CuptiKernelTimer&) = delete;
  CuptiKernelTimer& operator=(const CuptiKernelTimer&) = delete;

  void push_id(uint64_t external_id);
  void pop_id();
  // Flushes CUPTI (call after the device is idle) and returns the kernels launched under a pushed
  // id since the last collect(), in any order. Untagged kernels are dropped.
  std::vector<KernelInterval> collect();
};

}  // namespace arlab::harness
