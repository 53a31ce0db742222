// Launch-configuration policies (docs/policies.md) as pure functions: each returns a configuration that
// check_legal accepts, or throws InvalidArgument naming the broken invariant.
//   legacy    the peer library before the change (clusters of 8 on cc >= 9, grid capped at SMs)
//   trtllm    after the change, identical to TensorRT-LLM (trade cluster size for block size while
//             clusters x cluster size exceed the SMs)
//   occupancy trtllm's (tpb, cluster) with the grid sized by occupancy: min(clusters wanted,
//             resident cluster capacity) clusters (blocks/SM x SMs, GPC-limited cluster placement)
//   model     the lowest predicted time over the candidate space (model/candidates.h); may switch
//             algorithm (one-shot <-> two-shot), and says so
//   explicit  the user's configuration, after check_legal
#pragma once

#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/legality.h"

namespace arlab::model {

enum class Policy { legacy, trtllm, occupancy, model, explicit_config };

const char* to_string(Policy p);
Policy parse_policy(const std::string& s);  // legacy, trtllm, occupancy, model, explicit
std::vector<Policy> all_policies();          // in the order above

// The peer libraries' mapping, before any legality check (docs/policies.md):
//   VEC = 16 / sizeof(T); threads_per_token = H / VEC; clusters wanted C = tokens (one-shot) or
//   ceil(tokens / N) (two-shot);
//   cs = 8 on cc >= 9 else 1; halve cs until it divides threads_per_token; tpb = threads_per_token / cs;
//   while tpb < 128 and cs >= 2: tpb *= 2, cs /= 2;
//   trtllm only: while C*cs > SMs and cs > 1 and tpb <= 512: tpb *= 2, cs /= 2;
//   grid = floor(min(SMs, C*cs) / cs) * cs.
struct PeerMapping {
  int tpb = 0;
  int cluster = 1;
  int grid = 0;
  long long clusters_wanted = 0;
};
PeerMapping peer_mapping(Policy legacy_or_trtllm, const Problem& p, int sm_count, int cc_major);

// Largest grid (in blocks) the peer's two-shot barrier supports (docs/policies.md invariant grid <= 256).
constexpr int kPeerTwoShotMaxBlocks = 256;

// Pure. `explicit_cfg` is required for Policy::explicit_config and ignored otherwise.
// For every policy except `model`, the algorithm is problem.algo.
// `bodies`: the fused kernel bodies (common/implementations.h) the choice may use. The model policy
// searches all of them together with algorithm and configuration (each body with the algorithms its
// row runs); every other policy takes exactly one (its configuration gets that body; explicit_cfg's
// own body is replaced by it). A body without the problem's algorithm, with a non-model policy, is
// an InvalidArgument naming it.
LaunchConfig choose_launch_config(Policy policy, const Problem& problem, const GpuSpec& spec,
                                  const KernelResources& res, const Calibration& cal,
                                  const LaunchConfig* explicit_cfg = nullptr,
                                  const std::vector<Impl>& bodies = {Impl::reference});

// The same choice and, for display, how the policy reached it: the model policy says how many legal
// candidates it searched over which algorithms and when it switched algorithm; the others leave the
// note empty.
struct PolicyChoice {
  LaunchConfig config;
  std::string note;
};
// The model policy's search space, said in a few words: "one-shot + two-shot; kernel reference, lean",
// "one-shot only (lean runs one-shot only)". What a row's policy_note records.
std::string model_search_space(const Problem& problem, const std::vector<Impl>& bodies);
PolicyChoice explain_launch_config(Policy policy, const Problem& problem, const GpuSpec& spec,
                                   const KernelResources& res, const Calibration& cal,
                                   const LaunchConfig* explicit_cfg = nullptr,
                                   const std::vector<Impl>& bodies = {Impl::reference});

// The launch configuration of the baselines' separate residual-add + RMSNorm kernel
// (kernels/norm_kernel.cu, the baselines of common/implementations.h): no cluster; the fewest vectors
// per thread (1, 2 or 4) that keep one token's vectors within one block of at most
// max_threads_per_block threads, tpb = ceil(H / VEC / vpt); one block per token up to
// kNormBlocksPerSm blocks per SM (tokens beyond that loop in the blocks). The same simple rule
// as the one-token-per-block epilogue of the peer libraries' unfused kernels.
LaunchConfig separate_norm_config(const Problem& problem, const GpuSpec& spec);
// Blocks per SM the norm kernel's grid is capped at: 2 x 1024 threads fill an H100/H200 SM's
// 2048 threads (GpuSpec::max_threads_per_sm).
constexpr int kNormBlocksPerSm = 2;

}  // namespace arlab::model
