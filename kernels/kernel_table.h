// The fused-kernel instantiations, as the dispatch point sees them. kernels/families.cmake lists the
// kernel families (a fused kernel body of common/implementations.h with an algorithm); for every
// family and every dtype row below, kernels/CMakeLists.txt generates one translation unit holding
// that family's kernel for every N in kSupportedRanks and every pattern the dtype supports, and one
// registry entry (kernel_family_registry) the dispatch point (kernels/dispatch.cu) looks kernels up
// in. Splitting by (dtype, accumulation) keeps each translation unit to ~24 kernels, so the slow
// CUDA compiles run in parallel. Pure C++: the host side includes it.
#pragma once

#include <vector>

#include "common/implementations.h"
#include "common/problem.h"

namespace arlab::kernels {

// The dtype rows (name, dtype, accumulation, element type), mirrored by ARLAB_KERNEL_DTYPE_ROWS in
// kernels/CMakeLists.txt. fp32 has one row: its two accumulation modes are the same computation
// (docs/operation.md), so both use the pairwise instantiation.
constexpr Accumulation instantiated_accumulation(DType dtype, Accumulation acc) {
  return dtype == DType::fp32 ? Accumulation::pairwise : acc;
}

// One generated translation unit: the kernels of one family for one dtype row. `kernel` returns the
// __global__ function for N and pattern, or nullptr where none is instantiated (N not supported,
// NVFP4 with fp32).
struct FamilyInstantiation {
  Impl body;
  Algorithm algo;
  DType dtype;
  Accumulation acc;
  const void* (*kernel)(int nranks, Pattern pattern);
};

// Every generated instantiation (kernels/families.cmake x dtype rows), in the list's order.
const std::vector<FamilyInstantiation>& kernel_family_registry();

}  // namespace arlab::kernels
