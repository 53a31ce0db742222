// The computation behind `arlab numerics`, separate from its CLI: for every (N, dtype,
// accumulation) of a configuration, the error of the reference's all-reduced sum, residual_out and
// norm_out against the fp64 reference on the same seeded inputs (docs/operation.md: how the two
// accumulation modes are compared). Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/numerics_schema.h"
#include "common/problem.h"
#include "reference/fused_reference.h"

namespace arlab::numerics {

struct SweepConfig {
  uint64_t seed = 1;
  ref::Distribution distribution = ref::Distribution::normal;
  int tokens = 128;   // the seed case's concurrency (docs/policies.md)
  int hidden = 4096;  // Llama-3 8B
  float eps = 1e-5f;  // Llama-3's RMSNorm epsilon
  std::vector<int> ranks = {2, 4, 8, 16};
  std::vector<DType> dtypes = {DType::bf16, DType::fp16};
  std::vector<Accumulation> accs = {Accumulation::pairwise, Accumulation::fp32_acc};
};

// Outputs measured, in row order within one (N, dtype, acc).
inline constexpr const char* kSweepOutputs[3] = {"sum", "residual_out", "norm_out"};

// The Problem of one sweep point (pattern ar_res_rms: residual and norm, whose sum is also taken).
Problem sweep_problem(const SweepConfig& c, int nranks, DType dtype, Accumulation acc);

// Host memory one sweep point may hold (16 GiB: within the memory of the machines arlab runs on;
// the default point holds about 0.2 GB). Larger sweeps are refused instead of ending in
// std::bad_alloc, or in the kernel's out-of-memory killer.
constexpr double kMaxSweepPointBytes = 16.0 * (1ull << 30);

// An upper estimate of the host bytes the largest point of the sweep holds: per token x hidden
// element, every rank's input and its float conversion, the residual, three fp64 exact outputs and
// the reference's outputs (N x (dtype + 4) + 64 bytes).
double sweep_point_bytes(const SweepConfig& c);

// Throws InvalidArgument (naming the value) for an empty list, a duplicate, any sweep point that
// Problem validation rejects, or a point above kMaxSweepPointBytes -- before anything is computed.
void validate(const SweepConfig& c);

// One row per (N, dtype, acc, output), N outermost, in the order of the config's lists. Fills every
// column except experiment / git_sha / date_utc, which belong to the run (the CLI sets them).
std::vector<NumericsRow> run_sweep(const SweepConfig& c);

// Shortest decimal text that reads back as the same float (e.g. 1e-05 for 1e-5f).
std::string shortest_float_text(float v);

}  // namespace arlab::numerics
