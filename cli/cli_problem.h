// The problem options every `arlab` subcommand that takes one problem shares (run, predict): one
// set of names (nccl-tests style where it fits), one parser into a validated Problem.
#pragma once

#include <CLI/CLI.hpp>

#include <cfloat>
#include <string>

#include "cli/cli_checks.h"
#include "common/problem.h"

namespace arlab::cli {

struct ProblemOptions {
  int tokens = 128;
  int hidden = 4096;
  int ranks = 2;
  std::string dtype = "bf16";
  std::string pattern = "ar_res_rms";
  std::string acc = "pairwise";
  std::string algo = "oneshot";
  std::string sf_layout = "swizzled_128x4";
  float eps = 1e-5f;   // Llama-3's RMSNorm epsilon
  float scale = 1.0f;
  // Set by add_problem_options: whether the quantization options were given (they are refused for a
  // pattern that does not quantize: an option is never silently ignored).
  const CLI::Option* sf_layout_option = nullptr;
  const CLI::Option* scale_option = nullptr;
};

inline void add_problem_options(CLI::App* app, ProblemOptions& o) {
  app->add_option("-t,--tokens", o.tokens, "tokens per call")->capture_default_str()->check(int_at_least(1));
  app->add_option("--hidden", o.hidden, "hidden size H")->capture_default_str()->check(int_at_least(1));
  app->add_option("-n,--ranks", o.ranks, "ranks N (2, 4, 8, 16)")->capture_default_str()->check(integer_in(2, 16));
  app->add_option("-d,--dtype", o.dtype, "bf16, fp16 or fp32")->capture_default_str();
  app->add_option("--pattern", o.pattern,
                  "0-5 or ar, ar_res_rms, ar_res_rms_fp8, ar_res_rms_fp4, ar_res_rms_out_fp8, ar_res_rms_out_fp4")
      ->capture_default_str();
  app->add_option("--acc", o.acc, "pairwise or fp32_acc")->capture_default_str();
  app->add_option("--algo", o.algo, "oneshot or twoshot")->capture_default_str();
  o.sf_layout_option = app->add_option("--sf-layout", o.sf_layout,
                                        "NVFP4 scale-factor layout: linear or swizzled_128x4 (NVFP4 patterns only)")
                           ->capture_default_str();
  // FLT_MAX: both are floats; a larger number would become infinity.
  app->add_option("--eps", o.eps, "RMSNorm epsilon")->capture_default_str()->check(float_in(0, FLT_MAX));
  o.scale_option = app->add_option("--scale", o.scale,
                                   "FP8 dequant scale / NVFP4 global scale (quantizing patterns only)")
                       ->capture_default_str()
                       ->check(float_in(0, FLT_MAX, /*lo_open=*/true));
}

// Throws InvalidArgument naming the value (common/problem.h validate(); --scale must be finite and
// > 0), and when --sf-layout is given for a pattern without NVFP4 output or --scale for one that does
// not quantize.
inline Problem to_problem(const ProblemOptions& o) {
  Problem p;
  p.tokens = o.tokens;
  p.hidden = o.hidden;
  p.nranks = o.ranks;
  p.dtype = parse_dtype(o.dtype);
  p.pattern = parse_pattern(o.pattern);
  p.acc = parse_accumulation(o.acc);
  p.algo = parse_algorithm(o.algo);
  p.sf_layout = parse_scale_layout(o.sf_layout);
  p.eps = o.eps;
  p.scale = o.scale;
  if (!std::isfinite(p.scale) || !(p.scale > 0.0f))
    throw InvalidArgument("--scale = " + std::to_string(p.scale) + " must be finite and > 0");
  if (o.sf_layout_option != nullptr && o.sf_layout_option->count() > 0 && !has_fp4(p.pattern))
    throw InvalidArgument("--sf-layout " + o.sf_layout + ": pattern " + to_string(p.pattern) +
                          " has no NVFP4 output, so it does not use this option; drop it or use an _fp4 pattern");
  if (o.scale_option != nullptr && o.scale_option->count() > 0 && !has_quant(p.pattern))
    throw InvalidArgument(std::string("--scale: pattern ") + to_string(p.pattern) +
                          " does not quantize, so it does not use this option; drop it or use an _fp8 / _fp4 pattern");
  validate(p);
  return p;
}

}  // namespace arlab::cli
