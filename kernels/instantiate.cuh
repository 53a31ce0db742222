// The body of every kernels/<algo>_inst_<variant>.cu (one row of kernels/kernel_table.h): maps
// (N, pattern) to the kernel of one family (OneshotFamily, TwoshotFamily), element type T and
// accumulation A. Taking a kernel's address instantiates it, so this walk over kSupportedRanks and
// every pattern T supports instantiates exactly the kernels the dispatch point can return.
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>

#include "common/problem.h"
#include "kernels/dtype_traits.cuh"

namespace arlab::kernels {

namespace detail {

template <typename Family, typename T, int N, Pattern P, Accumulation A>
const void* kernel_if_supported() {
  if constexpr (pattern_supports_dtype(P, dtype_of<T>())) {
    return Family::template kernel<T, N, P, A>();
  } else {
    return nullptr;
  }
}

template <typename Family, typename T, int N, Accumulation A, std::size_t... Ps>
const void* kernel_by_pattern(Pattern pattern, std::index_sequence<Ps...>) {
  const void* fn = nullptr;
  ((pattern == static_cast<Pattern>(Ps) ? (fn = kernel_if_supported<Family, T, N, static_cast<Pattern>(Ps), A>())
                                        : nullptr),
   ...);
  return fn;
}

template <typename Family, typename T, Accumulation A, std::size_t... Is>
const void* kernel_by_ranks(int nranks, Pattern pattern, std::index_sequence<Is...>) {
  const void* fn = nullptr;
  ((nranks == kSupportedRanks[Is]
        ? (fn = kernel_by_pattern<Family, T, kSupportedRanks[Is], A>(pattern, std::make_index_sequence<kNumPatterns>{}))
        : nullptr),
   ...);
  return fn;
}

}  // namespace detail

template <typename Family, typename T, Accumulation A>
const void* instantiated_kernel(int nranks, Pattern pattern) {
  return detail::kernel_by_ranks<Family, T, A>(nranks, pattern,
                                               std::make_index_sequence<std::size(kSupportedRanks)>{});
}

}  // namespace arlab::kernels
