// The peers' kernels in a build without the FlashInfer headers (peers/peer_kernels.h): every
// function says what is missing and how to get it.
#include <stdexcept>

#include "peers/peer_kernels.h"

namespace arlab::peers {

namespace {

[[noreturn]] void missing() { throw InvalidArgument(not_built_reason()); }

}  // namespace

bool built() { return false; }
std::string not_built_reason() {
  return std::string("this arlab was built without the FlashInfer headers (") + ARLAB_PEERS_REASON +
         "): scripts/install-deps.sh fetches the flashinfer-python " + flashinfer_version() +
         " wheel's headers into the cache, then reconfigure (cmake --preset default)";
}
const void* flashinfer_kernel(const Problem&, Algorithm) { missing(); }
cudaError_t launch_flashinfer(const Problem&, const LaunchConfig&, const FlashinferArgs&, cudaStream_t) { missing(); }
const void* vllm_kernel(const Problem&) { missing(); }
cudaError_t launch_vllm(const Problem&, const VllmArgs&, cudaStream_t) { missing(); }

}  // namespace arlab::peers
