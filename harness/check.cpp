// Implementation of the runtime checks of harness/check.h.
#include "harness/check.h"

#include <cuda_runtime.h>

#include <sstream>

namespace arlab::detail {

void throw_cuda_error(const char* api, const char* call, int code, const std::string& name, const std::string& text,
                      const char* file, int line, int rank) {
  std::ostringstream os;
  os << api << " error " << code << " (" << name << ": " << text << ") in " << call << " at " << file << ":" << line;
  if (rank != kNoRank) os << " [rank " << rank << "]";
  throw CudaError(os.str());
}

void check_runtime(int code, const char* call, const char* file, int line, int rank) {
  if (code == static_cast<int>(cudaSuccess)) return;
  const auto e = static_cast<cudaError_t>(code);
  throw_cuda_error("CUDA runtime", call, code, cudaGetErrorName(e), cudaGetErrorString(e), file, line, rank);
}

}  // namespace arlab::detail
