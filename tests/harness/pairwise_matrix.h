// The correctness matrix shared by the one-shot and two-shot GPU tests: a pairwise (all-pairs)
// covering array over pattern x dtype x N x tokens x H x accumulation x launch recipe x PDL x
// scale-factor layout (harness/covering_array.h); every case runs once on a fresh runner with its
// outputs poisoned and is gated on every output of every rank (docs/operation.md). FP4 with fp32 is left
// out (refused; the refusal has its own tests). Each test file supplies its axes, its node shape
// and its launch recipes, and the kernel variant every case runs (common/launch_config.h
// KernelVariant: the one-shot test runs the matrix once per variant; recipes get that variant's
// registers and shared memory).
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/covering_array.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "model/legality.h"
#include "reference/compare.h"
#include "reference/fused_reference.h"
#include "tests/catch.h"

namespace arlab::testing {

// The axes both algorithms' matrices share (issue 4): every pattern, dtype, accumulation mode and
// NVFP4 layout, the ranks of the emulated node, and common LLM hidden sizes (incl. a non-power-of-two 5120, 7168).
const std::vector<Pattern> kMatrixPatterns = {Pattern::ar,
                                              Pattern::ar_res_rms,
                                              Pattern::ar_res_rms_fp8,
                                              Pattern::ar_res_rms_fp4,
                                              Pattern::ar_res_rms_out_fp8,
                                              Pattern::ar_res_rms_out_fp4};
const std::vector<DType> kMatrixDtypes = {DType::bf16, DType::fp16, DType::fp32};
const std::vector<int> kMatrixRanks = {2, 4, 8};
const std::vector<int> kMatrixHidden = {1024, 4096, 5120, 7168, 8192};
const std::vector<Accumulation> kMatrixAccs = {Accumulation::pairwise, Accumulation::fp32_acc};
const std::vector<ScaleLayout> kMatrixLayouts = {ScaleLayout::linear, ScaleLayout::swizzled_128x4};

struct MatrixAxes {
  std::vector<Pattern> patterns;
  std::vector<DType> dtypes;
  std::vector<int> ranks;
  std::vector<int> tokens;
  std::vector<int> hidden;
  std::vector<Accumulation> accs;
  int recipes = 0;  // launch recipes, numbered 0..recipes-1 by the test file
  std::vector<ScaleLayout> layouts;
};

using NodeFor = std::function<harness::NodeOptions(int nranks)>;
using ConfigFor = std::function<LaunchConfig(int recipe, const Problem&, const model::GpuSpec&,
                                             const model::KernelResources&)>;
using Describe = std::function<std::string(const Problem&, int recipe, const LaunchConfig&)>;

inline void run_pairwise_matrix(const std::string& label, Algorithm algo, const MatrixAxes& ax, uint64_t seed_base,
                                const NodeFor& node_for, const ConfigFor& config_for, const Describe& describe,
                                Impl variant = Impl::reference) {
  const std::vector<int> levels = {static_cast<int>(ax.patterns.size()), static_cast<int>(ax.dtypes.size()),
                                   static_cast<int>(ax.ranks.size()),    static_cast<int>(ax.tokens.size()),
                                   static_cast<int>(ax.hidden.size()),   static_cast<int>(ax.accs.size()),
                                   ax.recipes,                           2,  // PDL off / on
                                   static_cast<int>(ax.layouts.size())};
  auto allowed = [&](const harness::CoverRow& row) {
    return !(has_fp4(ax.patterns[row[0]]) && ax.dtypes[row[1]] == DType::fp32);
  };
  const harness::PairwiseCover cover = harness::pairwise_cover(levels, allowed);
  REQUIRE(harness::covers_all_feasible_pairs(levels, allowed, cover.rows));
  std::printf("%s: %zu cases cover every pair of the %zu axes\n", label.c_str(), cover.rows.size(), levels.size());

  int passed = 0, run = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t ni = 0; ni < ax.ranks.size(); ++ni) {
    harness::EmulatedNode node(node_for(ax.ranks[ni]));
    for (const harness::CoverRow& row : cover.rows) {
      if (row[2] != static_cast<int>(ni)) continue;
      Problem p;
      p.algo = algo;
      p.nranks = ax.ranks[ni];
      p.tokens = ax.tokens[row[3]];
      p.hidden = ax.hidden[row[4]];
      p.dtype = ax.dtypes[row[1]];
      p.pattern = ax.patterns[row[0]];
      p.acc = ax.accs[row[5]];
      p.sf_layout = ax.layouts[row[8]];
      if (has_quant(p.pattern)) p.scale = has_fp4(p.pattern) ? 0.75f : 0.02f;  // exercise the scale, not 1.0
      harness::FusedRunner runner(node, p, 1, seed_base + static_cast<uint64_t>(run), ref::Distribution::normal);
      LaunchConfig probe;  // the variant's kernel: its registers decide occupancy-sized grids
      probe.algo = algo;
      probe.impl = variant;
      LaunchConfig cfg = config_for(row[6], p, node.rank_spec(), runner.resources(probe));
      cfg.pdl = row[7] == 1;
      cfg.impl = variant;
      const std::string what = describe(p, row[6], cfg) + " kernel " + to_string(variant);
      INFO(what);
      REQUIRE(model::legality_violation(p, cfg, node.rank_spec(), runner.resources(cfg)).empty());
      const ref::GateReport rep = runner.check(p, cfg);
      ++run;
      passed += rep.pass ? 1 : 0;
      std::printf("  [%s] %s | %s\n", rep.pass ? "pass" : "FAIL", what.c_str(), rep.summary().c_str());
      CHECK(rep.pass);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %d of %d cases passed in %.1f s\n", label.c_str(), passed, run, secs);
  REQUIRE(run == static_cast<int>(cover.rows.size()));
}

}  // namespace arlab::testing
