// The one definition of the peers CSV schema (`arlab exp peers`, its summary step): one row per
// (problem, member) of the experiment -- arlab's reference kernel at trtllm's configuration, arlab's
// best (the model's pick over kernel bodies and algorithms), vLLM + the norm kernel, NCCL (+
// symmetric) + the norm kernel -- against FlashInfer at its own configuration, measured interleaved in
// one group: the headline times, the in-group ratio with its paired-round bootstrap 95 % CI (the
// ratio rows of NAME_ratios.csv), and the gate's verdict with the ulps where the outputs were not the
// reference's bit for bit. Written by experiments/peers_summary.cpp; read by plots/plot_peers.py by
// column name.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"
#include "common/node_problem_columns.h"

// X(type, name, description[, default])
#define ARLAB_PEERS_COLUMNS(X)                                                                               \
  X(std::string, git_sha, "arlab commit of the measurement rows")                                           \
  ARLAB_NODE_PROBLEM_COLUMNS(X)                                                                             \
  X(std::string, acc, "accumulation of the problem (pairwise at N = 2, fp32_acc above: vLLM's sum)")      \
  X(std::string, member, "the member's policy label: trtllm (arlab reference), model/auto (arlab's best), vllm, nccl, nccl_symmetric") \
  X(std::string, implementation, "what ran (common/implementations.h csv label: fused, flashinfer-VERSION, vllm, ...)") \
  X(std::string, kernel_variant, "its kernel body")                                                        \
  X(std::string, config, "tpb/cluster/grid/vpt/algo of the member")                                         \
  X(DoubleOrNan, member_us, "the member's headline median (us)")                                            \
  X(std::string, flashinfer_implementation, "FlashInfer's csv label with its version (flashinfer-VERSION)")     \
  X(DoubleOrNan, flashinfer_us, "FlashInfer at its own configuration: headline median (us), same group")    \
  X(std::string, flashinfer_config, "tpb/cluster/grid/vpt/algo FlashInfer's rule chose")                    \
  X(DoubleOrNan, speedup, "flashinfer_us / member_us: above 1, the member is faster than FlashInfer")       \
  X(DoubleOrNan, speedup_ci_lo, "lower bound of its 95 % bootstrap CI over paired rounds")                  \
  X(DoubleOrNan, speedup_ci_hi, "upper bound of the same")                                                  \
  X(DoubleOrNan, member_max_us, "the member's max-over-ranks median (kernel_us_median; us)")               \
  X(DoubleOrNan, member_start_skew_us, "the member's median start skew over ranks (us): it lowers the skew-free figure") \
  X(DoubleOrNan, flashinfer_max_us, "FlashInfer's max-over-ranks median (us)")                               \
  X(DoubleOrNan, flashinfer_start_skew_us, "FlashInfer's median start skew over ranks (us)")                 \
  X(std::string, check, "the member's gate verdict (pass, fail)")                                           \
  X(int, norm_max_ulp, "the member's largest norm_out ulp distance from the reference")                    \
  X(long long, quant_nonexact, "the member's quantized codes that differ from the reference")              \
  X(std::string, flashinfer_check, "FlashInfer's gate verdict in the same group")                           \
  X(int, flashinfer_norm_max_ulp, "FlashInfer's largest norm_out ulp distance from the reference")         \
  X(long long, flashinfer_quant_nonexact, "FlashInfer's quantized codes that differ from the reference")

namespace arlab {

ARLAB_CSV_SCHEMA(ARLAB_PEERS_COLUMNS, PeersRow, peers_header)

}  // namespace arlab
