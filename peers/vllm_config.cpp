// vLLM's custom all-reduce launch shape (peers/peer_kernels.h vllm_launch_config): pure, built in
// every configuration (the measurement rows record it).
#include <algorithm>

#include "peers/peer_kernels.h"

namespace arlab::peers {

namespace {
// vllm_custom_all_reduce.cuh: kMaxBlocks (36 blocks: "the best or close to the best runtime" in its
// authors' grid search) and the default 512 threads per block.
constexpr int kVllmBlocks = 36;
constexpr int kVllmThreads = 512;
}  // namespace

LaunchConfig vllm_launch_config(const Problem& p) {
  const long long packs = static_cast<long long>(p.tokens) * p.hidden / vec_elems(p.dtype);  // 16-byte packs
  LaunchConfig c;
  c.tpb = kVllmThreads;
  c.cluster = 1;
  c.grid = static_cast<int>(std::min<long long>(kVllmBlocks, (packs + kVllmThreads - 1) / kVllmThreads));
  c.vecs_per_thread = 0;  // a grid-stride loop: no fixed vectors per thread
  c.algo = p.algo;
  c.impl = Impl::vllm;
  return c;
}

}  // namespace arlab::peers
