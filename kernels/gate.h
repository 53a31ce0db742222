// The start gate of a timed iteration (DESIGN §6): one tiny kernel per rank, enqueued just before
// the fused kernel, that arrives on a counter in device memory and spins until every rank has
// arrived, so all ranks' fused kernels start together. The counter is cumulative (round g is open
// once it reaches g * N), so the gate needs no reset between rounds and works inside CUDA graphs.
// The spin is bounded like every other wait (fault kind `gate`).
#pragma once

#include <cuda_runtime.h>

#include "kernels/lamport_layout.h"

namespace arlab::kernels {

struct GateParams {
  LamportControl* my_control = nullptr;        // holds my round counter (gate_generation)
  unsigned long long* arrivals = nullptr;      // rank 0's control->gate_arrivals, mapped here
  unsigned long long* fault = nullptr;         // my fault word
  unsigned long long timeout_ns = 0;
  int nranks = 0;
  int rank = 0;
};

cudaError_t launch_gate(const GateParams& params, cudaStream_t stream);

}  // namespace arlab::kernels
