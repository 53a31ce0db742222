// The `model` policy's candidate space and search: every configuration check_legal accepts within
//   tpb       multiples of 32 in [64, 1024], plus ceil(threads_per_token / (cluster * vpt)) for
//             vpt in {1, 2, 4} when in [32, 1024] (so odd hidden sizes have an exact cover)
//   cluster   1, 2, 4, 8 (up to spec.max_cluster_size)
//   vpt       the one rule 2 of check_legal allows (1, 2 or 4)
//   grid      clusters from 1 up to the occupancy limit (resident cluster capacity; two-shot also
//             <= blocks/SM x SMs and kMaxTwoShotBlocks) and never more clusters than tokens; within
//             that range the values at which a model term can change: every distinct
//             ceil(tokens / r) and (two-shot) ceil(ceil(tokens / N) / r) for r = 1, 2, ..., every
//             whole number of blocks per SM (j x SMs / cluster), and the limit itself. Between two
//             such values the round counts are equal and more clusters only add blocks per SM.
//   algo      one-shot and two-shot (two-shot only when tokens >= N)
//   body      each fused kernel body asked for (common/implementations.h), with the algorithms its
//             row runs (today every body runs both)
#pragma once

#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/legality.h"

namespace arlab::model {

std::vector<LaunchConfig> candidate_configs(const Problem& p, const GpuSpec& spec, const KernelResources& res,
                                            const std::vector<Algorithm>& algos,
                                            const std::vector<Impl>& bodies = {Impl::reference});

struct SearchResult {
  LaunchConfig best;
  double best_us = 0;
  long long evaluated = 0;  // legal candidates predicted
};

// Lowest predicted time; ties go to fewer vectors per thread, then fewer blocks, then the earlier
// candidate (one-shot first, then smaller cluster and block). Throws InvalidArgument when no candidate is legal.
SearchResult search_best_config(const Problem& p, const GpuSpec& spec, const KernelResources& res,
                                const Calibration& cal, const std::vector<Algorithm>& algos,
                                const std::vector<Impl>& bodies = {Impl::reference});

// One-shot always; two-shot too when the problem allows it (tokens >= nranks).
std::vector<Algorithm> model_algorithms(const Problem& p);

}  // namespace arlab::model
