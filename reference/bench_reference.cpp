// arlab_bench_reference: wall time of the CPU reference on one core (the reference is
// single-threaded), so the cost of checking a GPU run is known. Prints the configuration and the
// best / median of --reps runs of reference_fused, plus one make_inputs, exact_fused and
// check_outputs (all ranks identical to the reference) for scale. Not a test: nothing is asserted.
//   build/reference/arlab_bench_reference --tokens 2048 --hidden 8192 --ranks 8 --dtype bf16 --pattern 5
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#include "reference/compare.h"
#include "reference/fused_reference.h"

namespace {

template <class Fn>
double seconds_of(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times the arlab CPU reference (single core) on one problem"};
  arlab::Problem p;
  p.tokens = 2048;
  p.hidden = 8192;
  p.nranks = 8;
  p.pattern = arlab::Pattern::ar_res_rms_out_fp4;
  std::string dtype = "bf16", pattern = "5", acc = "pairwise", layout = "swizzled_128x4";
  int reps = 3;
  uint64_t seed = 1;
  app.add_option("--tokens", p.tokens, "tokens")->capture_default_str();
  app.add_option("--hidden", p.hidden, "hidden size H")->capture_default_str();
  app.add_option("--ranks", p.nranks, "ranks N (2, 4, 8, 16)")->capture_default_str();
  app.add_option("--dtype", dtype, "bf16, fp16 or fp32")->capture_default_str();
  app.add_option("--pattern", pattern, "pattern number 0..5 or name")->capture_default_str();
  app.add_option("--acc", acc, "pairwise or fp32_acc")->capture_default_str();
  app.add_option("--sf-layout", layout, "linear or swizzled_128x4")->capture_default_str();
  app.add_option("--reps", reps, "timed runs of reference_fused")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "input seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    p.dtype = arlab::parse_dtype(dtype);
    p.pattern = arlab::parse_pattern(pattern);
    p.acc = arlab::parse_accumulation(acc);
    p.sf_layout = arlab::parse_scale_layout(layout);
    arlab::validate(p);
    std::printf("reference benchmark: tokens=%d hidden=%d ranks=%d dtype=%s pattern=%s acc=%s sf_layout=%s reps=%d "
                "seed=%llu (one core)\n",
                p.tokens, p.hidden, p.nranks, arlab::to_string(p.dtype), arlab::to_string(p.pattern),
                arlab::to_string(p.acc), arlab::to_string(p.sf_layout), reps, static_cast<unsigned long long>(seed));
    arlab::ref::FusedInputs in;
    const double t_inputs = seconds_of([&] { in = arlab::ref::make_inputs(p, seed); });
    std::vector<double> times;
    arlab::ref::FusedOutputs out;
    for (int i = 0; i < reps; ++i) times.push_back(seconds_of([&] { out = arlab::ref::reference_fused(p, in); }));
    arlab::ref::ExactOutputs exact;
    const double t_exact = seconds_of([&] { exact = arlab::ref::exact_fused(p, in); });
    const std::vector<arlab::ref::FusedOutputs> ranks(static_cast<size_t>(p.nranks), out);
    arlab::ref::GateReport gate;
    const double t_gate = seconds_of([&] { gate = arlab::ref::check_outputs(p, out, ranks, &exact); });
    std::sort(times.begin(), times.end());
    std::printf("  reference_fused   best %.3f s, median %.3f s over %d runs\n", times.front(), times[times.size() / 2],
                reps);
    std::printf("  make_inputs       %.3f s\n  exact_fused       %.3f s\n  check_outputs     %.3f s (%d ranks)\n",
                t_inputs, t_exact, t_gate, p.nranks);
    std::printf("  gate on identical outputs: %s\n", gate.summary().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab_bench_reference: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
