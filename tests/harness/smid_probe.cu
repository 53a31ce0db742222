// Test helper of smid_probe.h.
#include "tests/harness/smid_probe.h"

namespace {

__global__ void smid_probe_kernel(unsigned* out, unsigned long long spin_ns) {
  unsigned smid = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < spin_ns);
  if (threadIdx.x == 0) out[blockIdx.x] = smid;
}

}  // namespace

cudaError_t launch_smid_probe(unsigned* out, int blocks, unsigned long long spin_ns, cudaStream_t stream) {
  smid_probe_kernel<<<blocks, 32, 0, stream>>>(out, spin_ns);
  return cudaGetLastError();
}
