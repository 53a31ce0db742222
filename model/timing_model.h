// The analytic timing model v2 (docs/model.md): predicted kernel time of one fused all-reduce call for a
// (problem, launch configuration, GPU, link, calibration, kernel resources), with every term that
// makes it up. One model per algorithm, following the kernel's phases in the order they run:
//   one-shot (model/oneshot_model.cpp): launch, prologue, push, clear, first_wait, reduce, exit
//   two-shot (model/twoshot_model.cpp): launch, copy, barrier_1, reduce_scatter, barrier_2,
//                                       epilogue, exit
// Each phase lasts as long as its slowest limit -- a latency chain (per token round and per vector
// of a thread, serial in the kernel), a per-SM rate (Little's law, the SM's port, its peer-store
// rate), the link, or HBM -- and the phases add up: they run one after the other. Each term
// records the numbers it was computed from when it is computed; the explanation is that record.
// The constants come from `arlab calibrate` microbenchmarks (model/calibration_derive.h), never
// from fused-kernel timings. The prediction is the skew-free time of docs/measurement.md.
// link: nvlink = peers on other GPUs; local = the emulated node (peers on this GPU: their stores
// are this GPU's L2/HBM traffic, there is no link bound, and the calibration of the emulated node
// holds the cross-partition store-to-seen time and the bandwidth one partition gets while the other
// streams). Not modelled: PDL overlap with the previous kernel, clock changes, L2 residency of
// inputs (the harness rotates input sets). The NVFP4 odd-tpb shared-memory exchange is a line over warps
// per round since session 50 (nvfp4_odd_round_ns; 0, not modelled, without its calibrate rows).
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
