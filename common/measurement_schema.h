// The one definition of the measurement CSV schema (docs/csv.md): one row per measured
// (problem, launch configuration) written by `arlab run` and the experiments, read by
// common/csv_table.h read_rows (by column name: `arlab validate` / `arlab fit` through
// model/measurements.h, the experiments' summaries, resume and merge) and by plots/.
// Units are in the names (_us = microseconds). Timing-source columns say where a figure came from.
// Files of four generations are committed (36, 54, 56 and 57 columns, data/h200/; policy_note came later; since session
// 50 also sf_layout, input_distribution and input_seed, 60 columns): every column the
// oldest lacks is optional, and a file without it reads as its default -- "" for text, nan for a
// figure, -1 for a count or clock not recorded, fused / reference for implementation /
// kernel_variant (the only kinds that existed before those columns). New columns go last, with a
// default. The headline figure of a row: common/measurement_headline.h; what ran:
// common/measurement_kernel.h.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"

// X(type, name, description[, default]) -- common/csv.h
#define ARLAB_MEASUREMENT_COLUMNS(X)                                                                     \
  X(std::string, experiment, "experiment or command that produced the row")                              \
  X(std::string, git_sha, "arlab commit the binary was built from")                                      \
  X(std::string, date_utc, "UTC time of the measurement, ISO 8601")                                      \
  X(std::string, group_id, "rows measured interleaved in one process (one group) share this id", "")      \
  X(std::string, gpu, "device name as the driver reports it")                                            \
  X(std::string, driver, "driver version")                                                               \
  X(std::string, cuda, "CUDA runtime version")                                                           \
  X(std::string, topology, "emulated (green-context partitions), mpi, mpi-shared-gpu (untimeable) or p2p")\
  X(std::string, link, "link the traffic crossed: local (one GPU) or nvlink")                            \
  X(int, sm_per_rank, "SMs available to each rank")                                                      \
  X(int, nranks, "ranks N")                                                                              \
  X(std::string, dtype, "bf16, fp16 or fp32")                                                            \
  X(std::string, pattern, "fused pattern name (docs/operation.md)")                                              \
  X(std::string, algo, "oneshot or twoshot")                                                             \
  X(std::string, acc, "pairwise or fp32_acc")                                                            \
  X(int, tokens, "tokens per call")                                                                      \
  X(int, hidden, "hidden size H")                                                                        \
  X(std::string, policy, "launch-configuration policy")                                                  \
  X(int, tpb, "threads per block")                                                                       \
  X(int, cluster, "cluster size (blocks)")                                                               \
  X(int, grid, "blocks in the grid")                                                                     \
  X(int, vecs_per_thread, "16-byte vectors per thread per token")                                        \
  X(int, pdl, "programmatic dependent launch on (1) or off (0)")                                         \
  X(int, regs, "registers per thread of the kernel instantiation")                                       \
  X(int, iters, "timed iterations (per configuration)")                                                  \
  X(int, rounds, "interleaved rounds: configurations measured in one group alternate batch by batch; -1 not recorded", "-1") \
  X(std::string, stop_reason, "why iteration stopped: noise (target met), max_iters, max_time or fixed", "") \
  X(std::string, timing_source, "cupti (kernel records) or events (CUDA events around launches)")        \
  X(std::string, headline, "figure the noise target, ratios and model use: skew_free (max_over_ranks if undefined); empty when untimed (common/measurement_headline.h)", "") \
  X(DoubleOrNan, kernel_us_median, "median over iterations of max-over-ranks kernel duration")           \
  X(DoubleOrNan, kernel_us_ci_lo, "lower bound of the 95 % confidence interval of that median", "nan")   \
  X(DoubleOrNan, kernel_us_ci_hi, "upper bound of the 95 % confidence interval of that median", "nan")   \
  X(DoubleOrNan, kernel_us_p10, "10th percentile of the max-over-ranks duration")                        \
  X(DoubleOrNan, kernel_us_p90, "90th percentile of the same")                                           \
  X(DoubleOrNan, skewfree_us_median, "median of max_r(end_r) - max_r(start_r)")                          \
  X(DoubleOrNan, skewfree_us_ci_lo, "lower bound of the 95 % confidence interval of that median", "nan") \
  X(DoubleOrNan, skewfree_us_ci_hi, "upper bound of the 95 % confidence interval of that median", "nan") \
  X(DoubleOrNan, rank_spread_us_median, "median of max_r(duration) - min_r(duration)")                   \
  X(DoubleOrNan, start_skew_us_median, "median of max_r(start_r) - min_r(start_r) of the fused kernels", "nan") \
  X(DoubleOrNan, start_skew_us_p90, "90th percentile of the same", "nan")                                \
  X(DoubleOrNan, gate_skew_us_median, "median release skew of the start gate on one GPU clock (NaN across GPUs)", "nan") \
  X(DoubleOrNan, gate_skew_us_p90, "90th percentile of the same", "nan")                                 \
  X(DoubleOrNan, noise_pct, "half-width of the headline median's 95 % CI, percent of the median", "nan") \
  X(int, noise_target_met, "1 when noise_pct met the --max-noise target, else 0; -1 not recorded", "-1") \
  X(DoubleOrNan, graph_us_per_call, "graph-captured back-to-back calls: time per call (events)")         \
  X(int, sm_clock_mhz_start, "SM clock (NVML) after warm-up, before the timed rounds; -1 unknown", "-1") \
  X(int, sm_clock_mhz_end, "SM clock (NVML) after the timed rounds; -1 unknown", "-1")                   \
  X(int, mem_clock_mhz_start, "memory clock (NVML) before the timed rounds; -1 unknown", "-1")           \
  X(int, mem_clock_mhz_end, "memory clock (NVML) after the timed rounds; -1 unknown", "-1")              \
  X(DoubleOrNan, predicted_us, "analytic model prediction for this configuration")                       \
  X(std::string, check, "correctness gate verdict: pass, fail, or skipped (--no-check: the gate did not run)") \
  X(int, norm_max_ulp, "largest ulp difference of norm_out against the reference")                       \
  X(long long, quant_nonexact, "quantized codes that differ from the reference (within one step)")       \
  X(DoubleOrNan, err_rel_rms_vs_exact, "relative RMS error of the main output against the fp64 reference")   \
  X(std::string, implementation, "fused (arlab's fused kernel), unfused (arlab's all-reduce kernel + separate norm kernel) or nccl (ncclAllReduce + that norm kernel)", "fused") \
  X(DoubleOrNan, allreduce_us_median, "unfused / nccl: median of the max-over-ranks time of the all-reduce step alone (NaN for fused)", "nan") \
  X(std::string, kernel_variant, "the fused kernel body (common/implementations.h: reference, lean); a baseline's all-reduce kernel body (reference)", "reference") \
  X(std::string, policy_note, "how the policy chose: the model's search space (algorithms and kernel bodies), empty for fixed policies", "") \
  X(std::string, sf_layout, "NVFP4 patterns: the scale factors' layout, swizzled_128x4 or linear; empty for other patterns, and not recorded before session 50", "") \
  X(std::string, input_distribution, "the generated inputs' distribution: normal, uniform or heavy_tailed; empty: not recorded (rows before session 50)", "") \
  X(std::string, input_seed, "the seed of the generated inputs (--seed); empty: not recorded (rows before session 50)", "")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_MEASUREMENT_COLUMNS, MeasurementRow, measurement_header)

}  // namespace arlab
