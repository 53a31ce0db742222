// Launch-configuration policies (docs/policies.md) as pure functions: each returns a configuration that
// check_legal accepts, or throws InvalidArgument naming the broken invariant.
//   legacy    the peer library before the change (clusters of 8 on cc >= 9, grid capped at SMs)
//   trtllm    after the change, identical to TensorRT-LLM (trade cluster size for block size while
//             clusters x cluster size exceed the SMs)
//   occupancy trtllm's (tpb, cluster) with the grid sized by occupancy: min(clusters wanted,
//             resident cluster capacity) clusters (blocks/SM x SMs, GPC-limited cluster placement)
//   model     the lowest predicted time over the candidate space (model/candidates.h); may switch
//             algorithm (one-shot <-> two-shot), and says so
//   flashinfer FlashInfer's own choice (its launcher, trtllm_allreduce_fusion.cuh, and its Python
//             one-/two-shot rule, flashinfer/comm/trtllm_ar.py): trtllm's mapping with a block-size cap
//             from the kernel's registers, for the algorithm its rule picks (it may switch algorithm)
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

enum class Policy { legacy, trtllm, occupancy, model, flashinfer, explicit_config };

const char* to_string(Policy p);
Policy parse_policy(const std::string& s);  // legacy, trtllm, occupancy, model, flashinfer, explicit
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
// `max_threads_per_block`: the block size trtllm's doubling stops below (the doubling needs
// tpb <= max / 2); TensorRT-LLM fixes it at 1024, FlashInfer's launcher takes
// min(registers per block / registers per thread, 1024).
PeerMapping peer_mapping(Policy legacy_or_trtllm, const Problem& p, int sm_count, int cc_major,
                         int max_threads_per_block = 1024);

// FlashInfer 0.7.2's one-/two-shot rule (flashinfer/comm/trtllm_ar.py _should_use_oneshot and the
// Lamport size check after it): one-shot while tokens x H x 2 x N x sizeof(T) bytes is at most 512,
// 64 and 42 MiB at N = 2, 4 and 8, and while the Lamport buffer (N x tokens x H x 2 bytes; x 4 for
// fp32) fits its MAX_COMM_SIZE; else two-shot, which it allows only for tokens > N. Throws
// InvalidArgument naming the case where the library has no answer (N = 16: no entry in its table;
// two-shot with tokens <= N: its assertion).
Algorithm flashinfer_algorithm(const Problem& p);

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
// How many kernel bodies a policy note holding model_search_space's text says the search covered (the
// names after its last "; kernel "): 1 for a model policy held to one body (model/BODY), more for
// model/auto (the model chooses the body); 0 for a note without that text (other policies).
int bodies_in_search_note(const std::string& note);
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
