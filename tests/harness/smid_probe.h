// Test helper: which SMs a stream's kernels run on. Launches `blocks` blocks on `stream`; block b
// writes the id of the SM it ran on (%smid) to out[b] and spins ~spin_ns so that the blocks spread
// over every SM the stream may use.
#pragma once

#include <cuda_runtime.h>

cudaError_t launch_smid_probe(unsigned* out, int blocks, unsigned long long spin_ns, cudaStream_t stream);
