// The analytic timing model (DESIGN §7): predicted kernel time of one fused all-reduce call for a
// (problem, launch configuration, GPU, link, calibration, kernel resources), with every term that
// makes it up. The model follows the kernels of DESIGN §3 and sees no policy: a configuration is
// slow or fast only through its rounds, bytes in flight, reductions and bandwidth.
//
// ONE-SHOT (Lamport push). Clusters stride over tokens, one token per cluster per round:
//   rounds = waves * ceil(tokens / clusters), waves = ceil(min(tokens, clusters) / resident clusters).
//   Each round (serialized within a cluster, all clusters in parallel), per SM holding k active blocks:
//     input_loads   load(x [+ residual] bytes, dram latency)
//     push          stores of the token slice to all N ranks at the Little's-law rate of the link
//     visibility    one link latency until the last peer's store can be seen
//     poll          load(N slots, L2 latency)
//     compute       vectors x ops x sm_ns_per_vector_op
//     block_reduce  (RMSNorm patterns) fixed + per warp
//     cluster_reduce (RMSNorm, cluster > 1) two cluster barriers + one DSMEM read per block
//     output_stores stores of the outputs at the Little's-law / port rate
//   where load(B, L) = max(L, B*L/bytes_in_flight_per_sm, B/port) and store(B, L) = the same
//   without the latency floor (port = sm_l2_bytes_per_cycle x clock).
//   Then: launch (+ cluster launch), rank_skew, bandwidth_excess = max(0, max(HBM bound, link bound)
//   - round chain) with link bound (N-1)*S/B_link, clear of the previous buffer (N*S bytes of -0.0
//   stores over the grid's SMs), arrival (L2 latency + grid x serialized atomic).
// TWO-SHOT. copy (x to my comm buffer) -> barrier -> reduce-scatter of ceil(tokens/N) tokens
//   (remote loads of N slots, sum, push to N ranks) -> barrier -> epilogue over all tokens; each
//   phase's rounds = ceil(phase tokens / clusters); bandwidth_excess as above with link bytes
//   2*(N-1)/N*S per direction.
// link: nvlink = peers on other GPUs; local = emulated node, peers on this GPU (their stores are
// this GPU's L2/HBM traffic, the link term is zero and visibility costs an L2 round trip).
// Not modelled: PDL overlap with the previous kernel, clock throttling, L2 residency of inputs
// (inputs are taken from DRAM, as the harness rotates input sets).
#pragma once

#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/legality.h"

namespace arlab::model {

struct Term {
  std::string name;         // stable identifier (CSV-friendly)
  double us = 0;            // contribution to total_us; the terms sum to total_us
  std::string explanation;  // the formula with its numbers
};

struct Prediction {
  double total_us = 0;
  std::vector<Term> terms;
  std::string link;  // which link the prediction is for ("nvlink" or "local (...)")
};

// Full prediction with explanations. Throws InvalidArgument when the configuration is illegal
// (check_legal) -- the model only predicts what the kernels can run.
Prediction predict(const Problem& p, const LaunchConfig& c, const GpuSpec& spec, const Calibration& cal,
                   const KernelResources& res);

// The same total without explanations or legality check (the hot path of the candidate search,
// validation and fitting; the caller guarantees legality). Returns a negative value when the
// kernel cannot launch (blocks_per_sm == 0).
double predict_total_us(const Problem& p, const LaunchConfig& c, const GpuSpec& spec, const Calibration& cal,
                        const KernelResources& res);

// Vector operations per 16-byte vector of a token (sum over N ranks, residual, RMSNorm, quantization,
// packing); documented in timing_model.cpp.
int vector_ops_per_vector(const Problem& p);
// Output bytes written per token (allreduce_out / residual_out / norm_out / quant codes / scales).
double output_bytes_per_token(const Problem& p);

}  // namespace arlab::model
