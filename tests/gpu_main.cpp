// main() for GPU test binaries: where no CUDA device is visible the binary prints why and exits
// with kSkipCode, which ctest reports as "Skipped" (SKIP_RETURN_CODE), so CPU-only machines pass.
#include <cuda_runtime.h>

#include <cstdio>

#define CATCH_CONFIG_RUNNER  // Catch2 v2: compile the runner here (v3 ignores it)
#include "tests/catch.h"

namespace {
constexpr int kSkipCode = 77;  // the automake/ctest convention for "skipped"
}

int main(int argc, char* argv[]) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("SKIP: no CUDA device visible (%s); GPU tests need a GPU.\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return kSkipCode;
  }
  return Catch::Session().run(argc, argv);
}
