// `arlab numerics` (CPU only): how much error the two accumulation modes (pairwise vs fp32_acc)
// put into the all-reduced sum, residual_out and norm_out, for N in {2, 4, 8, 16} ranks and bf16 /
// fp16, measured against the fp64 reference on seeded inputs (experiments/numerics_sweep.h).
// Echoes its configuration, prints a compact table and appends tidy rows to a CSV
// (common/numerics_schema.h), which plots/plot_numerics.py turns into a figure.
#include <CLI/CLI.hpp>
#include <cfloat>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/build_info.h"
#include "common/csv.h"
#include "common/numerics_schema.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "experiments/numerics_sweep.h"
#include "cli/cli_checks.h"
#include "cli/commands.h"

namespace arlab::cli {

namespace {

struct NumericsOptions {
  unsigned long long seed = 1;
  std::string distribution = "normal";
  int tokens = 128;
  int hidden = 4096;
  float eps = 1e-5f;
  std::vector<int> ranks = {2, 4, 8, 16};
  std::vector<std::string> dtypes = {"bf16", "fp16"};
  std::vector<std::string> accs = {"pairwise", "fp32_acc"};
  std::string out = "out/numerics.csv";
};

template <class T, class Fn>
std::string joined(const std::vector<T>& v, Fn text) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + text(v[i]);
  return s;
}

numerics::SweepConfig to_config(const NumericsOptions& o) {
  numerics::SweepConfig c;
  c.seed = o.seed;
  c.distribution = ref::parse_distribution(o.distribution);
  c.tokens = o.tokens;
  c.hidden = o.hidden;
  c.eps = o.eps;
  c.ranks = o.ranks;
  c.dtypes.clear();
  for (const auto& d : o.dtypes) c.dtypes.push_back(parse_dtype(d));
  c.accs.clear();
  for (const auto& a : o.accs) c.accs.push_back(parse_accumulation(a));
  numerics::validate(c);
  return c;
}

void print_table(const std::vector<NumericsRow>& rows) {
  std::printf("\n%4s  %-5s  %-9s  %-13s %11s %11s %9s %9s %10s\n", "N", "dtype", "acc", "output", "max_abs", "rel_rms",
              "max_ulp", "mean_ulp", "exact_rnd");
  for (const NumericsRow& r : rows)
    std::printf("%4d  %-5s  %-9s  %-13s %11.3e %11.3e %9lld %9.3f %9.1f%%\n", r.nranks, r.dtype.c_str(), r.acc.c_str(),
                r.output.c_str(), r.err_max_abs, r.err_rel_rms, r.err_max_ulp, r.err_mean_ulp,
                100.0 * r.frac_correctly_rounded);
  std::printf(
      "\nulps count from the correctly rounded fp64 value; exact_rnd = share of elements equal to it.\n"
      "max_ulp of residual_out / norm_out is dominated by cancellation (|exact| far below the row's RMS,\n"
      "where one rounding of the sum is many ulps of the result); rel_rms is the robust figure.\n");
}

void run_numerics(const NumericsOptions& o) {
  const numerics::SweepConfig c = to_config(o);  // every bad option fails here, before any work
  // The output is checked before the sweep (a folder still to be made holds nothing to clash with);
  // its folder (out/ by default) is made once there are rows to append, so a refusal leaves nothing.
  const std::filesystem::path out_path(o.out);
  const bool folder_exists = !out_path.has_parent_path() || std::filesystem::is_directory(out_path.parent_path());
  if (folder_exists) check_output_path(o.out, {}, "--out");
  check_appendable(o.out, numerics_header());
  const std::string date = utc_now_iso8601();
  std::printf(
      "arlab numerics (git %s, %s): seed=%llu distribution=%s tokens=%d hidden=%d eps=%s ranks=%s dtypes=%s "
      "acc=%s pattern=ar_res_rms out=%s\n",
      arlab::git_sha(), date.c_str(), o.seed, ref::to_string(c.distribution), c.tokens, c.hidden,
      numerics::shortest_float_text(c.eps).c_str(), joined(c.ranks, [](int n) { return std::to_string(n); }).c_str(),
      joined(c.dtypes, [](DType d) { return std::string(to_string(d)); }).c_str(),
      joined(c.accs, [](Accumulation a) { return std::string(to_string(a)); }).c_str(), o.out.c_str());
  std::fflush(stdout);

  std::vector<NumericsRow> rows = numerics::run_sweep(c);
  for (NumericsRow& r : rows) {
    r.experiment = "numerics";
    r.git_sha = arlab::git_sha();
    r.date_utc = date;
  }
  print_table(rows);

  MadeFolders folder(folder_exists ? std::string() : out_path.parent_path().string());
  CsvAppender csv(o.out, numerics_header());
  for (const NumericsRow& r : rows) csv.append(to_cells(r));
  folder.keep();
  std::printf("appended %zu rows to %s\n", rows.size(), o.out.c_str());
}

}  // namespace

void add_numerics_command(CLI::App& app) {
  auto opts = std::make_shared<NumericsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "numerics",
      "CPU only: error of the all-reduced sum, residual_out and norm_out against an fp64 reference, for N ranks x "
      "dtype x accumulation (pairwise vs fp32_acc), on seeded random inputs; writes a tidy CSV");
  cmd->add_option("--seed", opts->seed, "input seed (0 .. 2^64-1)")->capture_default_str()->check(unsigned_64());
  cmd->add_option("--distribution", opts->distribution, "input distribution: normal, uniform or heavy_tailed")
      ->capture_default_str();
  cmd->add_option("--tokens", opts->tokens, "tokens per call")->capture_default_str()->check(int_at_least(1));
  cmd->add_option("--hidden", opts->hidden, "hidden size H")->capture_default_str()->check(int_at_least(1));
  // FLT_MAX: eps is a float; a larger number would become infinity.
  cmd->add_option("--eps", opts->eps, "RMSNorm epsilon")->capture_default_str()->check(float_in(0, FLT_MAX));
  cmd->add_option("--ranks", opts->ranks, "comma-separated rank counts from {2,4,8,16}")
      ->delimiter(',')
      ->default_str("2,4,8,16")
      ->check(any_int());
  cmd->add_option("--dtypes", opts->dtypes, "comma-separated dtypes from {bf16,fp16,fp32}")
      ->delimiter(',')
      ->default_str("bf16,fp16");
  cmd->add_option("--acc", opts->accs, "comma-separated accumulation modes from {pairwise,fp32_acc}")
      ->delimiter(',')
      ->default_str("pairwise,fp32_acc");
  cmd->add_option("--out", opts->out, "CSV to append to (created with its header if absent)")
      ->capture_default_str()
      ->check(non_empty_path());
  cmd->callback([opts] { run_numerics(*opts); });
}

}  // namespace arlab::cli
