// Legality of a launch configuration: the contract between model/ (policies, candidate space) and
// kernels/ (the launchers run every configuration check_legal accepts). One rule set, one place.
#pragma once

#include "common/launch_config.h"
#include "common/launch_limits.h"
#include "common/problem.h"
#include "model/gpu_spec.h"

namespace arlab::model {

// Resources of one kernel instantiation (from cudaFuncGetAttributes on the GPU; an assumption on
// the CPU, see cli/cli_model.cpp --regs).
struct KernelResources {
  int regs_per_thread = 0;
  int smem_per_block_bytes = 0;
};

// CUDA's limit on gridDim.x used by the launchers (1-D grids; kept at the portable 16-bit limit).
// kMaxThreadsPerBlock and kMaxTwoShotBlocks: common/launch_limits.h.
constexpr int kMaxGridBlocks = 65535;

// Barrier-flag slots of the peers' two-shot kernels (FlashInfer's kBarrierFlagCount, the same 256 as
// TensorRT-LLM's): their two-shot grids have at most this many blocks.
constexpr int kPeerBarrierFlags = 256;

// The vectors each thread must cover so that one cluster covers a token:
// ceil(threads_per_token / (tpb * cluster)).
int required_vecs_per_thread(const Problem& p, int tpb, int cluster);

// Throws InvalidArgument naming the broken invariant and its values. The rules:
//  0. validate(problem).
//  1. 1 <= tpb <= min(1024, spec.max_threads_per_block); cluster in {1,2,4,8} and
//     <= spec.max_cluster_size; grid >= cluster, grid % cluster == 0, grid <= 65535.
//  2. vecs_per_thread in {1,2,4} and == required_vecs_per_thread (a cluster covers one token in
//     vecs_per_thread passes; threads past the token's end idle).
//  2b. the implementation's own mapping (common/implementations.h ThreadMapping): FlashInfer's
//     kernels take tpb x cluster == threads_per_token with vecs_per_thread 1 only.
//  3. resources: blocks_per_sm(tpb, regs, smem) >= 1 and max_active_clusters(cluster) >= 1.
//  4. two-shot: tokens >= nranks; tpb >= nranks; all blocks co-resident:
//     grid <= max_active_clusters * cluster and grid <= blocks_per_sm * sm_count;
//     grid <= kMaxTwoShotBlocks.
//  5. one-shot: no co-residency requirement (Lamport flags need none).
void check_legal(const Problem& problem, const LaunchConfig& cfg, const GpuSpec& spec, const KernelResources& res);

// Same rules; returns the first violation's message, or an empty string when legal (no exception,
// for the candidate search).
std::string legality_violation(const Problem& problem, const LaunchConfig& cfg, const GpuSpec& spec,
                               const KernelResources& res);

}  // namespace arlab::model
