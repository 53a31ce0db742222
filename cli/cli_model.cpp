// The CPU subcommands over model/ (docs/policies.md, docs/model.md):
//   predict           a problem -> each policy's configuration, predicted time and terms (table or CSV)
//   validate          measured rows -> per-row prediction, MAPE, median APE, Spearman, regret per policy
//   fit               measured rows -> fitted calibration constants (Levenberg-Marquardt), held-out error
//   synthetic         model-generated rows in the measurement schema (benchmarks, tests; not measurements)
//   save-calibration  the calibration in use (built-in priors or --calibration) as a calibration CSV
// Every command echoes its full configuration first. Option names follow nccl-tests where they fit.
// Bad input fails before any work with a message naming the value and its range; an output is
// checked first (not an input, not a file of another schema) and written whole or not at all
// (common/output_file.h); rows are never judged or fitted when none is usable.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>

#include "common/build_info.h"
#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/measurement_schema.h"
#include "common/output_file.h"
#include "common/prediction_schema.h"
#include "common/row_cells.h"
#include "common/validation_schema.h"
#include "cli/cli_checks.h"
#include "cli/cli_config.h"
#include "cli/cli_problem.h"
#include "cli/commands.h"
#include "model/calibration.h"
#include "model/calibration_derive.h"
#include "cli/calibration_choice.h"
#include "model/candidates.h"
#include "model/fit.h"
#include "model/gpu_spec.h"
#include "model/measurements.h"
#include "model/occupancy.h"
#include "model/policies.h"
#include "model/synthetic.h"
#include "model/timing_model.h"
#include "model/validate.h"
#include "session/run_plan.h"

namespace arlab::cli {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Registers per thread assumed when the kernel's own count is unknown (CPU-only runs): 64, the
// most __launch_bounds__(1024) lets the compiler use (65536 registers per block / 1024 threads).
constexpr int kDefaultRegs = 64;

std::string spec_text(const model::GpuSpec& s) {
  return s.name + " (" + std::to_string(s.sm_count) + " SMs, sm_" + std::to_string(s.cc_major) +
         std::to_string(s.cc_minor) + ", HBM " + fmt("%.0f", s.hbm_gbps) + " GB/s, link " + model::to_string(s.link) +
         (s.link == model::LinkKind::nvlink ? " " + fmt("%.0f", s.link_gbps) + " GB/s/dir" : std::string()) + ")";
}

// ---------------------------------------------------------------------------------------------
struct PredictOptions {
  ProblemOptions problem;
  std::string gpu = "h200_sxm";
  bool emulated = false;
  std::string link;  // empty: preset's (or local when emulated)
  std::string calibration = kCalibrationAuto;
  int regs = kDefaultRegs;
  int smem = 0;
  std::vector<std::string> policies;  // empty: legacy trtllm occupancy model (+ explicit when --tpb)
  std::string kernel = "reference";   // reference, lean or auto (the model policy chooses)
  ExplicitConfigOptions config;
  std::string csv;
  bool no_terms = false;
};

model::GpuSpec make_spec(const PredictOptions& o, int nranks) {
  model::GpuSpec s = model::gpu_preset(o.gpu);
  if (o.emulated) s = model::sm_partition(s, nranks);
  if (!o.link.empty()) {
    const model::LinkKind k = model::parse_link(o.link);
    if (k == model::LinkKind::nvlink && s.link_gbps <= 0) s.link_gbps = model::gpu_preset(o.gpu).link_gbps;
    if (k == model::LinkKind::local) s.link_gbps = 0;
    s.link = k;
  }
  return s;
}

struct SyntheticCliOptions {
  int rows = 0;
  std::string out;
  std::string gpu = "h200_sxm";
  std::string calibration = kCalibrationAuto;
  std::uint64_t seed = 1;
  double noise = 0.0;
};

// The timing_source synthetic rows carry: what tells them from measurements in a measurement file.
constexpr const char* kModelTimingSource = "model";

void run_synthetic(const SyntheticCliOptions& o) {
  model::SyntheticOptions so;
  so.rows = o.rows;
  so.seed = o.seed;
  so.noise_sigma = o.noise;
  so.resolution_us = 0.001;  // CUPTI timestamps are in ns
  so.gpus = {o.gpu};
  model::gpu_preset(o.gpu);  // an unknown preset fails here, naming the known ones
  const CalibrationChoice choice = choose_calibration(
      o.calibration, NodeKind::none, gpu_family(o.gpu),
      "synthetic rows cover both node kinds, the whole GPU over NVLink and its emulated partitions");
  check_output_path(o.out, {choice.path}, "--out");
  // An existing file is appended to only when it holds synthetic rows alone: model-generated rows
  // never replace measurements, nor mix with them.
  const bool append = !inspect_csv_file(o.out).blank;
  if (append) {
    check_appendable(o.out, measurement_header());
    const int measured = model::rows_with_other_timing_source(o.out, kModelTimingSource);
    if (measured > 0)
      throw InvalidArgument("--out " + o.out + " holds " + std::to_string(measured) +
                            " rows that are not model-generated (timing_source is not '" + kModelTimingSource +
                            "'): synthetic rows are never written into a file of measurements; choose another --out");
  }
  const model::Calibration cal = load_choice(choice);
  std::printf("arlab synthetic %s: at least %d rows (whole problems of up to %d configurations) generated BY THE "
              "MODEL (not measurements), gpu %s (whole GPU over NVLink and emulated partitions), seed %llu, noise "
              "sigma %.3f, 1 ns resolution, calibration %s -> %s (%s)\n",
              arlab::git_sha(), o.rows, so.configs_per_problem + 3, o.gpu.c_str(),
              static_cast<unsigned long long>(o.seed), o.noise, choice.text.c_str(), o.out.c_str(),
              append ? "appended to its synthetic rows" : "new file");
  const auto t0 = Clock::now();
  const auto rows = model::synthetic_measurements(cal, so);
  if (append)
    model::append_measurements(rows, o.out, "synthetic-model", kModelTimingSource);
  else
    model::write_measurements(rows, o.out, "synthetic-model", kModelTimingSource);
  std::printf("%s %zu rows in %.1f ms\n", append ? "appended" : "wrote", rows.size(), ms_since(t0));
}

struct SaveCalibrationCliOptions {
  std::string out;
  std::string calibration = kCalibrationAuto;
  std::string from_microbench;
  std::vector<std::string> exchange_microbench;
  std::vector<std::string> skew_microbench;
  std::vector<std::string> rows_microbench;
  std::string round_microbench;
  std::string pushed_microbench;
  std::vector<std::string> added_microbench;
  std::vector<std::string> replace_microbench;
  std::string gpu;  // empty: the preset of the rows' GPU (derivation_preset)
};

// The rows --pushed-microbench replaces: bench cluster_sync, variant pushed (the lean kernels' exchange
// of block totals, which changed on 2026-12-03: st.async into an mbarrier instead of tagged stores and a
// spin per slot).
bool is_pushed_exchange_row(const MicrobenchRow& r) { return r.bench == "cluster_sync" && r.variant == "pushed"; }

// The epilogue_round rows --round-microbench adds: the patterns other than ar_res_rms (the RMSNorm
// round stays --from-microbench's, so the constants derived from it do not move).
bool is_pattern_round_row(const MicrobenchRow& r) {
  const auto starts = [&r](const char* prefix) { return r.variant.rfind(prefix, 0) == 0; };
  return r.bench == "epilogue_round" &&
         (starts("bf16_ar_res_rms_fp4") || (starts("bf16_ar") && !starts("bf16_ar_res_rms")));
}

// Rows of another `arlab calibrate` run of the same node kind, `keep` of them, appended to rows /
// lines / files (the file each row came from); names the file in every error. Returns how many it took.
size_t add_microbench_rows(const std::string& path, const char* option, const MicrobenchRow& first,
                           const std::function<bool(const MicrobenchRow&)>& keep, std::vector<MicrobenchRow>& rows,
                           std::vector<int>& lines, std::vector<std::string>& files) {
  std::vector<int> more_lines;
  const std::vector<MicrobenchRow> more = model::load_microbench(path, &more_lines);
  if (more.front().gpu != first.gpu || more.front().link != first.link)
    throw CsvError(path, more_lines.front(), "link",
                   std::string(option) + " rows were measured on '" + cut_for_message(more.front().gpu) + "', link " +
                       more.front().link + "; --from-microbench on '" + cut_for_message(first.gpu) + "', link " +
                       first.link + ": one node kind only");
  size_t taken = 0;
  for (size_t i = 0; i < more.size(); ++i)
    if (keep(more[i])) {
      rows.push_back(more[i]);
      lines.push_back(more_lines[i]);
      files.push_back(path);
      ++taken;
    }
  return taken;
}

// The GPU preset a derivation uses: --gpu's, else the preset of the GPU the rows name (their gpu cell, read as
// for a device: preset_for_device_name, "NVIDIA H100 80GB HBM3" -> h100_sxm). Refused: rows of a GPU with no
// preset and no --gpu, and a --gpu other than the rows' own preset where they have one (an H100's rows judged
// against the H200's datasheet would give wrong efficiencies without a word; until session 48 --gpu defaulted
// to h200_sxm whatever the rows said).
std::string derivation_preset(const SaveCalibrationCliOptions& o, const MicrobenchRow& first, int line) {
  const std::string own = model::preset_for_device_name(first.gpu);
  if (o.gpu.empty()) {
    if (own.empty()) {
      std::string names;
      for (const std::string& name : model::gpu_preset_names()) names += (names.empty() ? "" : ", ") + name;
      throw CsvError(o.from_microbench, line, "gpu",
                     "no GPU preset for the rows' GPU '" + cut_for_message(first.gpu) +
                         "'; name the preset whose datasheet fits it with --gpu (" + names + ")");
    }
    return own;
  }
  model::gpu_preset(o.gpu);  // an unknown preset fails here, naming the known ones
  if (!own.empty() && o.gpu != own)
    throw InvalidArgument("--gpu " + o.gpu + " is not the GPU the rows were measured on ('" +
                          cut_for_message(first.gpu) + "', preset " + own + "): leave --gpu out, or pass " + own);
  return o.gpu;
}

// The calibration `arlab calibrate` derives, from its microbench.csv on the CPU: the GPU preset
// gives the datasheet bandwidths and clock; rows of the emulated node (link local) are judged
// against one rank's partition of it.
void run_derive_calibration(const SaveCalibrationCliOptions& o) {
  std::vector<std::string> inputs = o.exchange_microbench;
  inputs.insert(inputs.end(), o.added_microbench.begin(), o.added_microbench.end());
  inputs.insert(inputs.end(), o.skew_microbench.begin(), o.skew_microbench.end());
  inputs.insert(inputs.end(), o.rows_microbench.begin(), o.rows_microbench.end());
  inputs.insert(inputs.end(), o.replace_microbench.begin(), o.replace_microbench.end());
  inputs.insert(inputs.end(), {o.from_microbench, o.round_microbench, o.pushed_microbench});
  check_output_path(o.out, inputs, "save-calibration FILE");
  std::vector<int> lines;
  std::vector<MicrobenchRow> rows = model::load_microbench(o.from_microbench, &lines);
  const MicrobenchRow first = rows.front();  // every row holds the same provenance (load_microbench)
  std::vector<std::string> files(rows.size(), o.from_microbench);  // the file each row came from, for errors
  // Takes the rows `drop` names out of rows / lines / files; returns how many.
  const auto erase_rows = [&](const std::function<bool(const MicrobenchRow&)>& drop) {
    size_t erased = 0;
    for (size_t i = rows.size(); i-- > 0;)
      if (drop(rows[i])) {
        rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(i));
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        files.erase(files.begin() + static_cast<std::ptrdiff_t>(i));
        ++erased;
      }
    return erased;
  };
  // --pushed-microbench's pushed rows replace these (their cluster-1 baseline, variant sync_dsmem, stays this file's).
  if (!o.pushed_microbench.empty()) erase_rows(is_pushed_exchange_row);
  for (const std::string& path : o.exchange_microbench) {
    // Other runs of `arlab calibrate`: a node of more ranks, or the grid round's rows: only their exchange
    // rows are read.
    const auto exchange = [](const MicrobenchRow& r) { return r.bench == "exchange"; };
    if (add_microbench_rows(path, "--exchange-microbench", first, exchange, rows, lines, files) == 0)
      throw CsvError(path, 0, "bench",
                     "no exchange rows (`arlab calibrate -n 8` writes them on a node of 8 ranks, and any `arlab "
                     "calibrate` of 2026-12-03 or later its all_to_all_grid rows)");
  }
  // Runs of `arlab calibrate` at another number of ranks of the same node kind: only their rows of the
  // benches that depend on N, at a rank count other than the main file's, are read (every other bench of
  // such a run measured other partitions); the main file's own N comes from its own rows.
  const auto add_other_ranks = [&](const std::string& path, const char* option, const std::string& what,
                                   const std::function<bool(const MicrobenchRow&)>& keep) {
    const auto other_ranks = [&](const MicrobenchRow& r) { return keep(r) && r.nranks != first.nranks; };
    if (add_microbench_rows(path, option, first, other_ranks, rows, lines, files) == 0)
      throw CsvError(path, 0, "nranks",
                     "no " + what + " rows at a number of ranks other than --from-microbench's (" +
                         std::to_string(first.nranks) + "): `arlab calibrate -n 4` or `-n 8` writes them");
  };
  // start_skew, for start_spacing_ns_n2 / _n4 / _n8.
  for (const std::string& path : o.skew_microbench)
    add_other_ranks(path, "--skew-microbench", "start_skew",
                    [](const MicrobenchRow& r) { return r.bench == "start_skew"; });
  // The rows bench (bandwidth rows_*), for hbm_rows_fraction_*_n4 / _n8: it runs at the node's own N.
  for (const std::string& path : o.rows_microbench)
    add_other_ranks(path, "--rows-microbench", "bandwidth rows_*",
                    [](const MicrobenchRow& r) { return r.bench == "bandwidth" && r.variant.rfind("rows_", 0) == 0; });
  if (!o.round_microbench.empty()) {
    // Another run of `arlab calibrate` (an arlab whose epilogue_round bench measures the NVFP4 and ar
    // rounds): only those rows are read.
    if (add_microbench_rows(o.round_microbench, "--round-microbench", first, is_pattern_round_row, rows, lines,
                            files) == 0)
      throw CsvError(o.round_microbench, 0, "variant",
                     "no epilogue_round rows of the NVFP4 or ar pattern (variants bf16_ar_res_rms_fp4*, bf16_ar*: "
                     "an arlab calibrate of 2026-12-02 or later writes them)");
  }
  if (!o.pushed_microbench.empty()) {
    // Another run of `arlab calibrate` (an arlab whose pushed exchange goes through mbarriers): only its
    // cluster_sync pushed rows are read.
    if (add_microbench_rows(o.pushed_microbench, "--pushed-microbench", first, is_pushed_exchange_row, rows, lines,
                            files) == 0)
      throw CsvError(o.pushed_microbench, 0, "variant",
                     "no cluster_sync rows of variant pushed (`arlab calibrate` without --quick writes them)");
  }
  if (!o.added_microbench.empty()) {
    // Benches added to `arlab calibrate` since --from-microbench's run: the rows of every (bench, variant)
    // pair that none of the files above supplies, so none of their rows is replaced or joined.
    std::set<std::pair<std::string, std::string>> own;
    for (const MicrobenchRow& r : rows) own.insert({r.bench, r.variant});
    for (const std::string& path : o.added_microbench) {
      const auto added = [&own](const MicrobenchRow& r) { return own.count({r.bench, r.variant}) == 0; };
      if (add_microbench_rows(path, "--added-microbench", first, added, rows, lines, files) == 0)
        throw CsvError(path, 0, "variant",
                       "no rows of a bench and variant that the other files lack (it adds only benches added to "
                           "`arlab calibrate` since --from-microbench's run, e.g. launch store_1 / store_8 of "
                           "2026-12-03)");
    }
  }
  for (const std::string& path : o.replace_microbench) {
    // Runs of newer kernels for the benches they measured anew (since session 51): every row of the file goes in,
    // and every row of the other inputs of a (bench, variant) pair it holds comes out first. A file none of whose
    // pairs the others hold replaces nothing (that is --added-microbench) and is refused.
    std::set<std::pair<std::string, std::string>> theirs;
    for (const MicrobenchRow& r : model::load_microbench(path)) theirs.insert({r.bench, r.variant});
    if (erase_rows([&theirs](const MicrobenchRow& r) { return theirs.count({r.bench, r.variant}) != 0; }) == 0)
      throw CsvError(path, 0, "variant",
                     "replaces no rows: none of its bench and variant pairs is in the other input files (rows of "
                     "benches they lack are added with --added-microbench)");
    add_microbench_rows(path, "--replace-microbench", first, [](const MicrobenchRow&) { return true; }, rows, lines,
                        files);
  }
  std::string exchange_files, added_files, skew_files, rows_files, replace_files;
  for (const std::string& path : o.replace_microbench) replace_files += (replace_files.empty() ? "" : ", ") + path;
  for (const std::string& path : o.exchange_microbench) exchange_files += (exchange_files.empty() ? "" : ", ") + path;
  for (const std::string& path : o.skew_microbench) skew_files += (skew_files.empty() ? "" : ", ") + path;
  for (const std::string& path : o.rows_microbench) rows_files += (rows_files.empty() ? "" : ", ") + path;
  for (const std::string& path : o.added_microbench) added_files += (added_files.empty() ? "" : ", ") + path;
  const std::string preset = derivation_preset(o, first, lines.front());
  const model::GpuSpec whole = model::gpu_preset(preset);
  const bool local = first.link == "local";
  model::GpuSpec spec = whole;
  if (local) {
    try {
      spec = model::sm_partition(whole, first.nranks);
    } catch (const InvalidArgument& e) {
      throw CsvError(o.from_microbench, lines.front(), "nranks", e.what());
    }
  }
  if (first.sm_per_rank != spec.sm_count)
    throw CsvError(o.from_microbench, lines.front(), "sm_per_rank",
                   "sm_per_rank = " + std::to_string(first.sm_per_rank) + " does not fit --gpu " + preset + " (" +
                       std::to_string(whole.sm_count) + " SMs) with link " + first.link +
                       (local ? ": on the emulated node each of the " + std::to_string(first.nranks) +
                                    " ranks owns a partition of " + std::to_string(spec.sm_count) + " SMs"
                              : ": a rank owns the whole GPU") +
                       "; pass the --gpu these rows were measured on (their gpu cell: '" + cut_for_message(first.gpu) +
                       "')");
  std::printf("arlab save-calibration %s: deriving the model's constants from %s%s%s%s%s (%zu microbenchmark rows; "
              "%s, %s, %s; --gpu %s)\n",
              arlab::git_sha(), o.from_microbench.c_str(), exchange_files.empty() ? "" : " and the exchange rows of ",
              exchange_files.c_str(), o.round_microbench.empty() ? "" : " and the NVFP4 / ar round rows of ",
              o.round_microbench.c_str(), rows.size(), first.gpu.c_str(), first.topology.c_str(), first.link.c_str(),
              preset.c_str());
  if (!o.pushed_microbench.empty())
    std::printf("  the cluster_sync pushed rows are those of %s\n", o.pushed_microbench.c_str());
  if (!added_files.empty())
    std::printf("  the rows of benches and variants the files above lack are those of %s\n", added_files.c_str());
  if (!skew_files.empty()) std::printf("  the start_skew rows of other rank counts are those of %s\n", skew_files.c_str());
  if (!rows_files.empty())
    std::printf("  the rows bench's rows of other rank counts are those of %s\n", rows_files.c_str());
  if (!replace_files.empty())
    std::printf("  the rows of %s replace the other files' rows of the benches and variants they hold\n",
                replace_files.c_str());
  model::DerivedCalibration d;
  try {
    d = model::derive_calibration(rows, spec);
  } catch (const model::DeriveError& e) {
    // Named at the first row the constant comes from, where one exists.
    const model::MicrobenchQuery& q = e.rows;
    const bool prefix = !q.variant.empty() && q.variant.back() == '*';
    const std::string stem = prefix ? q.variant.substr(0, q.variant.size() - 1) : q.variant;
    for (size_t i = 0; e.rows_exist && i < rows.size(); ++i)
      if (rows[i].bench == q.bench && rows[i].metric == q.metric &&
          (prefix ? rows[i].variant.rfind(stem, 0) == 0 : rows[i].variant == q.variant))
        throw CsvError(files[i], lines[i], "value",
                       std::string(e.what()) + " (the first row of bench " + q.bench + ", variant " + q.variant +
                           ", metric " + q.metric + ")");
    throw CsvError(o.from_microbench, 0, "",
                   std::string("no calibration can be derived from these rows: ") + e.what() +
                       " (arlab calibrate writes it: was the row deleted, or its bench, variant or metric cell "
                       "changed?)");
  }
  for (const std::string& note : d.notes) std::printf("  %s\n", note.c_str());
  model::save_calibration(d.calibration, o.out,
                          "arlab calibrate: " + o.from_microbench + " (" + first.gpu + ", " + first.topology +
                              ", link " + first.link + ", git " + first.git_sha + ", " + first.date_utc + ")" +
                              (exchange_files.empty() ? std::string() : " + exchange rows of " + exchange_files) +
                              (o.round_microbench.empty() ? std::string()
                                                          : " + NVFP4 / ar round rows of " + o.round_microbench) +
                              (o.pushed_microbench.empty() ? std::string()
                                                           : " + cluster_sync pushed rows of " + o.pushed_microbench) +
                              (added_files.empty() ? std::string() : " + added-bench rows of " + added_files) +
                              (skew_files.empty() ? std::string() : " + start_skew rows of " + skew_files) +
                              (rows_files.empty() ? std::string() : " + rows bench rows of " + rows_files) +
                              (replace_files.empty() ? std::string() : " + rows replaced by " + replace_files));
  std::printf("  wrote %s\n", o.out.c_str());
}

void run_save_calibration(const SaveCalibrationCliOptions& o, const CLI::App& sub) {
  if (!o.exchange_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--exchange-microbench adds rows to --from-microbench's: give both");
  if (!o.round_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--round-microbench adds rows to --from-microbench's: give both");
  if (!o.pushed_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--pushed-microbench replaces rows of --from-microbench's: give both");
  if (!o.added_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--added-microbench adds rows to --from-microbench's: give both");
  if (!o.replace_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--replace-microbench replaces rows of --from-microbench's: give both");
  if (!o.skew_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--skew-microbench adds rows to --from-microbench's: give both");
  if (!o.rows_microbench.empty() && o.from_microbench.empty())
    throw InvalidArgument("--rows-microbench adds rows to --from-microbench's: give both");
  if (!o.from_microbench.empty()) {
    if (sub.count("--calibration") > 0) throw InvalidArgument("--from-microbench and --calibration exclude each other");
    run_derive_calibration(o);
    return;
  }
  refuse_unused_options(sub, {"file", "--calibration"},
                        "save-calibration without --from-microbench copies the calibration in use");
  const CalibrationChoice choice =
      choose_calibration(o.calibration, NodeKind::none, "", "save-calibration is about no node; name a file");
  check_output_path(o.out, {choice.path}, "save-calibration FILE");
  model::save_calibration(load_choice(choice), o.out,
                          choice.path.empty() ? "default prior (model/calibration.h)" : "copy of " + choice.path);
  std::printf("arlab save-calibration %s: wrote the calibration in use (%s) to %s\n", arlab::git_sha(),
              choice.text.c_str(), o.out.c_str());
}

void print_terms(const model::Prediction& pr) {
  for (const auto& t : pr.terms)
    std::printf("    %-16s %9.3f us  %s\n", t.name.c_str(), t.us, t.explanation.c_str());
}

// Throws InvalidArgument unless every policy can take --kernel (session/run_plan.h plan_group's
// rules: auto is the model policy's choice alone; a fixed policy keeps the problem's algorithm, so
// its body must have a kernel of it).
void check_predict_kernel(const session::KernelChoice& kernel, const std::vector<model::Policy>& policies,
                          const Problem& p, bool policies_given) {
  session::GroupRequest r;
  r.kernels = {kernel};
  for (model::Policy pol : policies) {
    r.policies.push_back(model::to_string(pol));
    if (pol == model::Policy::explicit_config) r.shapes.push_back(model::ExplicitShape{1, 1, 1, 0});  // its own checks
  }
  if (r.policies.empty()) return;
  try {
    session::plan_group(r, p);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string(e.what()) + (policies_given ? "" : " (--policy: the default policy list)"));
  }
}

// The policy column of a prediction row: the policy's name, "/BODY" added for a body other than the
// reference (the labels `arlab run --kernel` writes).
std::string prediction_label(model::Policy pol, const LaunchConfig& cfg) {
  return std::string(model::to_string(pol)) +
         (cfg.impl == Impl::reference ? "" : std::string("/") + to_string(cfg.impl));
}

void run_predict(const PredictOptions& o) {
  const Problem p = to_problem(o.problem);
  const session::KernelChoice kernel = session::parse_kernel_choice(o.kernel);
  const std::vector<Impl>& variants = kernel.bodies;
  const model::GpuSpec spec = make_spec(o, p.nranks);
  const NodeKind node = o.emulated ? NodeKind::emulated : o.link == "local" ? NodeKind::none : NodeKind::nvlink;
  const CalibrationChoice choice = choose_calibration(o.calibration, node, gpu_family(o.gpu),
                                                      node == NodeKind::none ? "--link local on a whole GPU"
                                                                             : "--gpu " + o.gpu);
  const model::Calibration cal = load_choice(choice);
  const model::KernelResources res{o.regs, o.smem};
  if (o.smem > spec.max_smem_per_block_optin)
    throw InvalidArgument("--smem = " + std::to_string(o.smem) + " bytes exceeds the " +
                          std::to_string(spec.max_smem_per_block_optin) + " bytes a block may use on " + spec.name);
  if (!o.csv.empty()) {
    check_output_path(o.csv, {choice.path}, "--csv");
    check_appendable(o.csv, prediction_header());
  }

  std::vector<model::Policy> policies;
  if (o.policies.empty()) {
    policies = {model::Policy::legacy, model::Policy::trtllm, model::Policy::occupancy, model::Policy::model};
    if (o.config.any_given()) policies.push_back(model::Policy::explicit_config);
  } else {
    for (const auto& s : o.policies) policies.push_back(model::parse_policy(s));
  }
  check_predict_kernel(kernel, policies, p, !o.policies.empty());
  const bool explicit_listed =
      std::find(policies.begin(), policies.end(), model::Policy::explicit_config) != policies.end();
  // The explicit configuration is checked as `arlab run` checks it: the options go with --policy
  // explicit only, --tpb and --grid are required, and the configuration must be legal.
  check_explicit_options_have_policy(o.config, explicit_listed, o.policies.empty() ? "" : o.policies.front());
  LaunchConfig explicit_cfg;
  if (explicit_listed) {
    explicit_cfg = explicit_config(explicit_shape(o.config), p);
    explicit_cfg.impl = variants.front();  // one body: check_predict_kernel refused auto beside explicit
    model::check_legal(p, explicit_cfg, spec, res);
  }

  std::printf("arlab predict %s\n", arlab::git_sha());
  std::printf("  problem     : tokens %d, hidden %d, ranks %d, dtype %s, pattern %s, algo %s, acc %s\n", p.tokens,
              p.hidden, p.nranks, to_string(p.dtype), to_string(p.pattern), to_string(p.algo), to_string(p.acc));
  std::printf("  gpu         : %s%s\n", spec_text(spec).c_str(), o.emulated ? " [emulated rank: sm_partition]" : "");
  std::printf("  kernel      : %s; %d registers/thread, %d B shared memory/block\n",
              o.kernel == "auto" ? "auto (the model policy chooses reference or lean)" : o.kernel.c_str(),
              res.regs_per_thread, res.smem_per_block_bytes);
  std::printf("  calibration : %s\n", choice.text.c_str());
  if (!spec.notes.empty()) std::printf("  gpu notes   : %s\n", spec.notes.c_str());
  std::string plist;
  for (model::Policy pol : policies) plist += std::string(plist.empty() ? "" : ", ") + model::to_string(pol);
  std::printf("  policies    : %s%s\n", plist.c_str(),
              explicit_listed ? (" (explicit " + to_string(explicit_cfg) + ")").c_str() : "");
  if (!o.csv.empty()) std::printf("  csv         : %s (common/prediction_schema.h, appended)\n", o.csv.c_str());

  struct Row {
    model::Policy policy;
    LaunchConfig cfg;
    model::Prediction pred;
    std::string error;
    std::string note;
  };
  std::vector<Row> rows;
  for (model::Policy pol : policies) {
    Row r{pol, {}, {}, {}, {}};
    try {
      const auto t0 = Clock::now();
      const model::PolicyChoice choice = model::explain_launch_config(pol, p, spec, res, cal, &explicit_cfg, variants);
      r.cfg = choice.config;
      if (!choice.note.empty()) r.note = choice.note + "; chosen in " + fmt("%.2f", ms_since(t0)) + " ms";
      Problem run = p;
      run.algo = r.cfg.algo;
      r.pred = model::predict(run, r.cfg, spec, cal, res);
    } catch (const InvalidArgument& e) {
      r.error = e.what();
    }
    rows.push_back(std::move(r));
  }

  std::printf("\n  %-10s %-8s %-10s %-16s %4s %10s %14s\n", "policy", "algo", "kernel", "tpb/cluster/grid", "vpt",
              "blocks/SM", "predicted_us");
  for (const Row& r : rows) {
    if (!r.error.empty()) {
      std::printf("  %-10s refused: %s\n", model::to_string(r.policy), r.error.c_str());
      continue;
    }
    const std::string shape =
        std::to_string(r.cfg.tpb) + "/" + std::to_string(r.cfg.cluster) + "/" + std::to_string(r.cfg.grid);
    std::printf("  %-10s %-8s %-10s %-16s %4d %10d %14.3f\n", model::to_string(r.policy), to_string(r.cfg.algo),
                to_string(r.cfg.impl), shape.c_str(), r.cfg.vecs_per_thread,
                model::blocks_per_sm(spec, r.cfg.tpb, res.regs_per_thread, res.smem_per_block_bytes), r.pred.total_us);
  }
  for (const Row& r : rows)
    if (!r.note.empty()) std::printf("  %s: %s\n", model::to_string(r.policy), r.note.c_str());
  if (!o.no_terms) {
    for (const Row& r : rows) {
      if (!r.error.empty()) continue;
      std::printf("\n  [%s] %s: %.3f us, link %s\n", model::to_string(r.policy), to_string(r.cfg).c_str(),
                  r.pred.total_us, r.pred.link.c_str());
      print_terms(r.pred);
    }
  }
  if (!o.csv.empty()) {
    CsvAppender out(o.csv, prediction_header());
    for (const Row& r : rows) {
      if (!r.error.empty()) continue;
      PredictionRow row;
      row.gpu = spec.name;
      row.link = model::to_string(spec.link);
      row.sm_per_rank = spec.sm_count;
      set_problem_cells(row, p);
      row.policy = prediction_label(r.policy, r.cfg);
      set_config_cells(row, r.cfg);
      row.regs = res.regs_per_thread;
      row.predicted_us = r.pred.total_us;
      for (const auto& t : r.pred.terms) {
        row.term = t.name;
        row.term_us = t.us;
        row.explanation = t.explanation;
        out.append(to_cells(row));
      }
    }
    std::printf("\n  appended %s\n", o.csv.c_str());
  }
}

// ---------------------------------------------------------------------------------------------
struct ValidateCliOptions {
  std::string input;
  std::string calibration = kCalibrationAuto;
  std::string gpu;
  std::string out;
  bool model_search = false;
};

void run_validate(const ValidateCliOptions& o) {
  if (!o.gpu.empty()) model::gpu_preset(o.gpu);  // an unknown preset fails here, naming the known ones
  if (!o.out.empty()) {
    check_output_path(o.out, {o.input, o.calibration}, "--out");
    check_replaceable(o.out, validation_header());
  }
  const auto t0 = Clock::now();
  const auto rows = model::read_measurements(o.input);
  const double read_ms = ms_since(t0);
  const CalibrationChoice choice = calibration_for_rows(o.calibration, rows, o.gpu);
  if (!o.out.empty()) check_output_path(o.out, {o.input, choice.path}, "--out");
  std::printf("arlab validate %s\n  input       : %s\n  calibration : %s\n  gpu         : %s\n  output      : %s\n",
              arlab::git_sha(), o.input.c_str(), choice.text.c_str(),
              o.gpu.empty() ? "from each row's gpu column" : o.gpu.c_str(), o.out.empty() ? "(none)" : o.out.c_str());
  const model::Calibration cal = load_choice(choice);
  const auto t1 = Clock::now();
  model::ValidateOptions vo;
  vo.gpu_override = o.gpu;
  vo.model_global_search = o.model_search;
  vo.source = o.input;
  const model::ValidationReport rep = model::validate_measurements(rows, cal, vo);
  model::require_usable_rows(rows, rep, o.input);
  const double validate_ms = ms_since(t1);
  double write_ms = 0;
  if (!o.out.empty()) {
    const auto t2 = Clock::now();
    model::write_validation_csv(rows, rep, o.out);
    write_ms = ms_since(t2);
  }
  std::printf("\n  rows %zu: used %d, failed correctness check %d (excluded), not predictable %d; problems %d\n",
              rows.size(), rep.rows_used, rep.rows_failed_check, rep.rows_not_predicted, rep.problems);
  std::printf("  against the headline (skew-free median where recorded): MAPE %.2f %%   median APE %.2f %%   "
              "p90 APE %.2f %%   max APE %.2f %%\n", 100 * rep.mape, 100 * rep.median_ape, 100 * rep.p90_ape,
              100 * rep.max_ape);
  if (rep.rows_with_skewfree > 0)
    std::printf("  against the max-over-ranks median (%d rows): MAPE %.2f %%   median APE %.2f %%\n",
                rep.rows_with_skewfree, 100 * rep.mape_max_over_ranks, 100 * rep.median_ape_max_over_ranks);
  std::printf("  Spearman rho: all rows %.4f; per problem (%d problems with >= 3 configurations) mean %.4f, median "
              "%.4f\n",
              rep.spearman_all, rep.spearman_problems, rep.spearman_per_problem_mean, rep.spearman_per_problem_median);
  std::printf("\n  regret = time(policy's configuration, measured) / time(best measured) - 1\n");
  std::printf("  %-42s %9s %10s %8s %9s %9s %9s %9s\n", "policy", "evaluated", "unmeasured", "refused", "best-pick",
              "mean", "median", "max");
  for (const auto& r : rep.regrets)
    std::printf("  %-42s %9d %10d %8d %9d %8.2f%% %8.2f%% %8.2f%%\n", r.policy.c_str(), r.evaluated, r.unmeasured,
                r.refused, r.zero_regret, 100 * r.mean, 100 * r.median, 100 * r.max);
  std::printf("  (unmeasured: the policy's configuration was not among the measured ones for that problem -- left out,"
              " never guessed)\n");
  if (rep.model_global_in_measured >= 0)
    std::printf("  model global choice (full candidate search) was measured for %d of %d problems; the search found "
                "no legal candidate for %d\n",
                rep.model_global_in_measured, rep.problems, rep.model_global_search_failed);
  std::printf("\n  time: read %.1f ms, validate %.1f ms, write %.1f ms, total %.1f ms (%zu rows)\n", read_ms,
              validate_ms, write_ms, read_ms + validate_ms + write_ms, rows.size());
  if (!o.out.empty()) std::printf("  wrote %s\n", o.out.c_str());
}

// ---------------------------------------------------------------------------------------------
struct FitCliOptions {
  std::string input;
  std::string out;
  std::string calibration = kCalibrationAuto;
  std::string gpu;
  std::vector<std::string> params;
  int holdout_every = 5;
  int max_iterations = 100;
};

void run_fit(const FitCliOptions& o) {
  if (!o.gpu.empty()) model::gpu_preset(o.gpu);  // an unknown preset fails here, naming the known ones
  check_output_path(o.out, {o.input, o.calibration}, "--out");
  check_replaceable(o.out, calibration_header());
  model::FitOptions fo;
  if (!o.params.empty()) fo.parameters = o.params;
  fo.holdout_every = o.holdout_every;
  fo.max_iterations = o.max_iterations;
  fo.gpu_override = o.gpu;
  fo.source = o.input;
  std::string plist;
  for (const auto& n : fo.parameters) plist += (plist.empty() ? "" : ",") + n;
  const auto rows = model::read_measurements(o.input);
  const CalibrationChoice choice = calibration_for_rows(o.calibration, rows, o.gpu);
  check_output_path(o.out, {o.input, choice.path}, "--out");
  std::printf("arlab fit %s\n  input       : %s\n  start       : %s\n  gpu         : %s\n  parameters  : %s\n"
              "  split       : problems with FNV-1a(problem key) %% %d == 0 held out\n  output      : %s\n",
              arlab::git_sha(), o.input.c_str(), choice.text.c_str(),
              o.gpu.empty() ? "from each row's gpu column" : o.gpu.c_str(), plist.c_str(), o.holdout_every,
              o.out.c_str());
  const model::Calibration start = load_choice(choice);
  const auto t0 = Clock::now();
  const model::FitReport rep = model::fit_calibration(rows, start, fo);
  const double ms = ms_since(t0);
  std::printf("\n  train %d rows (%d problems), held out %d rows (%d problems); %d iterations, %s (%s), %.0f ms\n",
              rep.train_rows, rep.train_problems, rep.test_rows, rep.test_problems, rep.iterations,
              rep.converged ? "converged" : "not converged", rep.stop_reason.c_str(), ms);
  std::printf("  %-26s %14s %14s\n", "constant", "start", "fitted");
  for (const auto& c : rep.constants) std::printf("  %-26s %14.6g %14.6g\n", c.name.c_str(), c.start, c.fitted);
  std::printf("  MAPE train: %.2f %% -> %.2f %%   held out: %.2f %% -> %.2f %%\n", 100 * rep.train_mape_start,
              100 * rep.train_mape_fitted, 100 * rep.test_mape_start, 100 * rep.test_mape_fitted);
  const std::string source = "fit: " + o.input + " (" + std::to_string(rep.train_rows) + " train rows, held-out MAPE " +
                             fmt("%.2f", 100 * rep.test_mape_fitted) + " %, git " + arlab::git_sha() + ")";
  model::save_calibration(rep.fitted, o.out, source);
  std::printf("  wrote %s\n", o.out.c_str());
}

void add_measurement_file_argument(CLI::App* sub, std::string& path) {
  sub->add_option("file", path, "measurement CSV (common/measurement_schema.h)")->required()->check(CLI::ExistingFile);
}

void add_calibration_option(CLI::App* sub, std::string& path) {
  sub->add_option("--calibration", path, calibration_option_help())
      ->capture_default_str()
      ->check(CLI::IsMember({std::string(kCalibrationAuto), std::string(kCalibrationPriors)}) |
              (non_empty_path() & CLI::ExistingFile));
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* sub = app.add_subcommand("predict", "predict each policy's configuration and time, with every term");
  add_problem_options(sub, o->problem);  // --algo: the model policy may switch algorithm
  sub->add_option("--gpu", o->gpu, "GPU preset: h100_sxm, h200_sxm, b200, a100_sxm, h20")->capture_default_str();
  sub->add_flag("--emulated", o->emulated, "one emulated rank: sm_partition of the GPU, link local");
  sub->add_option("--link", o->link, "override the link: nvlink or local");
  add_calibration_option(sub, o->calibration);
  // 255: the most registers a CUDA thread can have (every arch since sm_35).
  sub->add_option("--regs", o->regs,
                  "registers per thread of the kernel (default 64 = the __launch_bounds__(1024) cap)")
      ->capture_default_str()
      ->check(integer_in(1, 255));
  sub->add_option("--smem", o->smem, "shared memory per block, bytes")->capture_default_str()->check(int_at_least(0));
  sub->add_option("--policy", o->policies, "policies to show (default: legacy trtllm occupancy model [explicit])");
  sub->add_option("--kernel", o->kernel,
                  "kernel body to predict: reference (the peer library's design; one-shot: push to every rank's "
                  "buffer, own slot included, poll every slot, then a separate -0.0 clear pass; two-shot: copy, "
                  "barrier, reduce-scatter, barrier, epilogue), lean (one-shot: own slice added from registers, "
                  "polled slots cleared as they are consumed, no clear pass; two-shot: no barrier, each row pushed "
                  "to its owner and the owner's sum pushed back) or auto (--policy model only: the model chooses "
                  "the body with the algorithm and launch shape)")
      ->capture_default_str();
  add_explicit_config_options(sub, o->config);
  sub->add_option("--csv", o->csv, "append tidy rows (common/prediction_schema.h) to this CSV")
      ->check(non_empty_path());
  sub->add_flag("--no-terms", o->no_terms, "print only the summary table");
  sub->callback([o] { run_predict(*o); });
}

void add_synthetic_command(CLI::App& app) {
  auto o = std::make_shared<SyntheticCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "synthetic", "write MODEL-GENERATED rows in the measurement schema (benchmarks, tests; not measurements)");
  // 10^7 rows: about 2 GB of CSV, 100x the largest benchmark (README: validate on 100,018 rows).
  sub->add_option("--rows", o->rows, "rows to generate (at least; whole problems)")
      ->required()
      ->check(integer_in(1, 10000000));
  sub->add_option("--out", o->out,
                  "measurement CSV to write (common/measurement_schema.h); an existing file is appended to only "
                  "when it holds synthetic rows alone")
      ->required()
      ->check(non_empty_path());
  sub->add_option("--gpu", o->gpu, "GPU preset the rows are generated for")->capture_default_str();
  add_calibration_option(sub, o->calibration);
  sub->add_option("--seed", o->seed, "random seed")->capture_default_str()->check(unsigned_64());
  // 1: a sigma that spreads times by a factor e per standard deviation is no measurement noise.
  sub->add_option("--noise", o->noise, "multiplicative log-normal noise sigma")
      ->capture_default_str()
      ->check(finite_in(0, 1));
  sub->callback([o] { run_synthetic(*o); });
}

void add_save_calibration_command(CLI::App& app) {
  auto o = std::make_shared<SaveCalibrationCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "save-calibration", "write the calibration in use (--calibration's file, or the built-in priors) to a calibration CSV");
  sub->add_option("file", o->out, "calibration CSV to write (common/calibration_schema.h)")
      ->required()
      ->check(non_empty_path());
  add_calibration_option(sub, o->calibration);
  sub->add_option("--from-microbench", o->from_microbench,
                  "derive the constants from an `arlab calibrate` microbench.csv instead (model/calibration_derive.h)")
      ->check(CLI::ExistingFile);
  sub->add_option("--exchange-microbench", o->exchange_microbench,
                  "with --from-microbench: the exchange rows of other `arlab calibrate` runs of the same node kind (one "
                  "or more files): a node of more ranks (`-n 8`) for the ranks term (exchange_ns_per_rank*), the "
                  "all_to_all_grid rows for the grid term (exchange_grid_ns_per_block*)")
      ->check(CLI::ExistingFile);
  sub->add_option("--skew-microbench", o->skew_microbench,
                  "with --from-microbench: the start_skew rows of `arlab calibrate` runs of the same node kind at other "
                  "rank counts (`-n 4`, `-n 8`; one or more files), for start_spacing_ns_n4 / _n8 (the emulated "
                  "node's gap between the ranks' starts)")
      ->check(CLI::ExistingFile);
  sub->add_option("--rows-microbench", o->rows_microbench,
                  "with --from-microbench: the rows bench's rows (bandwidth rows_*) of `arlab calibrate` runs of the "
                  "same node kind at other rank counts (`-n 4`, `-n 8`; one or more files), for "
                  "hbm_rows_fraction_*_n4 / _n8 (one partition's rate over packed rows while every partition streams)")
      ->check(CLI::ExistingFile);
  sub->add_option("--round-microbench", o->round_microbench,
                  "with --from-microbench: the NVFP4 and ar rows of bench epilogue_round of another `arlab calibrate` "
                  "run of the same node kind, for nvfp4_round_ns, nvfp4_round_ns_per_warp and ar_round_ns")
      ->check(CLI::ExistingFile);
  sub->add_option("--pushed-microbench", o->pushed_microbench,
                  "with --from-microbench: the cluster_sync pushed rows of another `arlab calibrate` run of the same "
                  "node kind replace its own, for pushed_exchange_ns and pushed_exchange_ns_per_peer (the lean "
                  "kernels' exchange of block totals through mbarriers, 2026-12-03)")
      ->check(CLI::ExistingFile);
  sub->add_option("--added-microbench", o->added_microbench,
                  "with --from-microbench: other `arlab calibrate` runs of the same node kind (one or more files) "
                  "whose rows of a bench and variant that no other input file holds are added (benches added since "
                  "--from-microbench's run, e.g. launch store_1 / store_8 for exit_store_drain_ns)")
      ->check(CLI::ExistingFile);
  sub->add_option("--replace-microbench", o->replace_microbench,
                  "with --from-microbench: other `arlab calibrate` runs of the same node kind (one or more files) whose "
                  "rows replace, bench and variant at a time, those of every other input file (a run of newer kernels "
                  "for the benches it measured anew); a file that replaces no rows is refused")
      ->check(CLI::ExistingFile);
  sub->add_option("--gpu", o->gpu,
                  "GPU preset for --from-microbench (datasheet bandwidths, clock, SMs); default: the preset of the GPU "
                  "its rows name (their gpu cell: NVIDIA H100 ... -> h100_sxm); another GPU's preset is refused");
  sub->callback([o, sub] { run_save_calibration(*o, *sub); });
}

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateCliOptions>();
  CLI::App* sub = app.add_subcommand("validate", "judge the model on measured rows: errors, rank correlation, regret");
  add_measurement_file_argument(sub, o->input);
  add_calibration_option(sub, o->calibration);
  sub->add_option("--gpu", o->gpu, "GPU preset for every row (default: from the gpu column)");
  sub->add_option("--out", o->out, "write per-row results (common/validation_schema.h)")->check(non_empty_path());
  sub->add_flag("--model-search", o->model_search, "also run the full model search per problem (slow)");
  sub->callback([o] { run_validate(*o); });
}

void add_fit_command(CLI::App& app) {
  auto o = std::make_shared<FitCliOptions>();
  CLI::App* sub = app.add_subcommand("fit", "least-squares fit of the model's constants; reports held-out error");
  add_measurement_file_argument(sub, o->input);
  sub->add_option("--out", o->out, "calibration CSV to write")->required()->check(non_empty_path());
  add_calibration_option(sub, o->calibration);
  sub->add_option("--gpu", o->gpu, "GPU preset for every row (default: from the gpu column)");
  sub->add_option("--params", o->params, "constants to fit (default: model::default_fit_parameters())")->delimiter(',');
  sub->add_option("--holdout-every", o->holdout_every, "hold out problems whose hash % this == 0 (>= 2)")
      ->capture_default_str()
      ->check(any_int());
  sub->add_option("--max-iter", o->max_iterations, "Levenberg-Marquardt iteration limit (>= 1)")
      ->capture_default_str()
      ->check(any_int());
  sub->callback([o] { run_fit(*o); });
}

}  // namespace arlab::cli
