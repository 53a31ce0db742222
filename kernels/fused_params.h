// The argument block of one fused all-reduce kernel call (docs/operation.md): this rank's tensors, the
// problem sizes and the view of the Lamport workspaces. Filled by the host (harness/), passed by
// value as the kernel's only parameter. Plain data, compiles without CUDA.
#pragma once

#include "kernels/lamport_layout.h"
#include "kernels/twoshot_layout.h"

namespace arlab::kernels {

constexpr int kMaxVecsPerThread = 4;   // legal vecs_per_thread are 1, 2, 4 (model/legality.h)

struct FusedParams {
  // ---- this rank's tensors (device pointers, 16-byte aligned) ----
  const void* x = nullptr;            // [tokens, H] T: my contribution to the sum
  const void* residual_in = nullptr;  // [tokens, H] T
  const void* gamma = nullptr;        // [H] T
  const float* scale = nullptr;       // device scalar: FP8 dequant scale / NVFP4 global scale S
  void* allreduce_out = nullptr;      // [tokens, H] T        (pattern ar)
  void* residual_out = nullptr;       // [tokens, H] T        (patterns 1-5)
  void* norm_out = nullptr;           // [tokens, H] T        (patterns 1, 4, 5)
  void* quant_out = nullptr;          // FP8 [tokens, H] bytes, NVFP4 [tokens, H/2] bytes
  void* scale_out = nullptr;          // NVFP4 e4m3 scale factors, layout sf_layout
  // ---- problem ----
  float eps = 0.0f;
  int tokens = 0;
  int hidden = 0;
  int sf_swizzled = 0;                // 0: LINEAR, 1: SWIZZLED 128x4 (docs/operation.md)
  int rank = 0;
  // ---- launch shape the kernel cannot read from built-ins ----
  int cluster = 1;                    // blocks per cluster (1 = launched without a cluster)
  int vecs_per_thread = 1;
  // ---- Lamport workspace ----
  void* regions[kMaxRanks] = {};      // every rank's Lamport region, mapped into this process
  void* my_region = nullptr;          // regions[rank] (kept apart so the kernel never indexes by a run-time rank)
  LamportControl* control = nullptr;  // my control block
  unsigned long long* fault = nullptr;  // my fault word
  long long slot_bytes = 0;
  long long buffer_bytes = 0;
  unsigned long long timeout_ns = 0;  // bound of every spin-wait (%globaltimer nanoseconds)
  // ---- two-shot workspace (kernels/twoshot_layout.h); unused by the one-shot kernel ----
  TwoshotView twoshot;
};

}  // namespace arlab::kernels
