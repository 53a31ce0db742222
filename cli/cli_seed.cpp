// `arlab seed`: the main experiment. The motivating case of arlab -- one-shot fused all-reduce +
// residual + RMSNorm, bf16, Llama-3 decode at TP2 -- measured beside the analytic model's
// predictions, over tokens and launch-configuration policies (experiments/seed_cases.h).
//   measure  (a GPU is visible): `arlab exp seed`'s cases on the emulated node (session/session.h
//            run_experiment), checked and timed; rows go to OUT/measured.csv
//            (common/measurement_schema.h), in-group ratios against trtllm to OUT/ratios.csv;
//   predict  (no GPU): the committed H200 measurements (data/h200/seed.csv) stand in for them.
// Either way the model then predicts every measured row (model/validate.h) and the rows with their
// predictions go to OUT/validation.csv (common/validation_schema.h), read by plots/plot_seed.py.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli_checks.h"
#include "cli/cli_timing.h"
#include "cli/commands.h"
#include "common/csv_table.h"
#include "common/implementations.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/output_file.h"
#include "common/output_target.h"
#include "common/ratio_schema.h"
#include "experiments/seed_cases.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/policies.h"
#include "model/timing_model.h"
#include "model/measurements.h"
#include "model/validate.h"
#include "session/session.h"

namespace arlab::cli {
namespace {

constexpr const char* kMeasuredEmulatedCalibration = "data/calibration/h200_emulated.csv";
constexpr const char* kDefaultNvlinkCalibration = "data/calibration/h200_nvlink.csv";

struct SeedOptions {
  std::string mode = "auto";
  std::string data = "data/h200/seed.csv";
  std::string ratios = "data/h200/seed_ratios.csv";
  std::string out_dir = "out/seed";
  // The node the seed measures is the emulated one: "auto" takes its measured calibration,
  // kMeasuredEmulatedCalibration, when that file is found from the working directory (the repository
  // root), else the built-in priors; the echo says which.
  std::string calibration = "auto";
  // The measured calibrations of the two nodes (`arlab calibrate`): the term-by-term explanation of
  // legacy vs trtllm at the seed point.
  // Defaults: skipped (with a note) when not found from the working directory; a path given
  // explicitly must exist and hold a valid calibration, checked before any work.
  std::string calibration_nvlink = kDefaultNvlinkCalibration;
  std::string calibration_emulated = kMeasuredEmulatedCalibration;
  // Which of the file options were on the command line (CLI11 count() > 0): a file given explicitly
  // must exist; a default that is not found is skipped with a note.
  bool nvlink_given = false, emulated_given = false, ratios_given = false;
  int device = 0;
  unsigned long long input_seed = 1;
  double timeout_ms = 2000;
  TimingCliOptions timing;
};

// A node's calibration for the term-by-term explanation: "" or a default path that is not found
// gives none (the explanation says it is skipped); an explicit path must load.
struct NodeCalibration {
  std::string node, path;
  model::GpuSpec spec;
  std::optional<model::Calibration> cal;
};

std::vector<NodeCalibration> node_calibrations(const SeedOptions& o) {
  const model::GpuSpec h200 = model::gpu_preset("h200_sxm");
  std::vector<NodeCalibration> nodes = {
      {"real TP2 (2 x H200, NVLink)", o.calibration_nvlink, h200, std::nullopt},
      {"emulated TP2 (64-SM partitions of one H200)", o.calibration_emulated, model::sm_partition(h200, 2),
       std::nullopt}};
  const bool given[2] = {o.nvlink_given, o.emulated_given};
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeCalibration& n = nodes[i];
    if (n.path.empty() || (!given[i] && !std::filesystem::exists(n.path))) continue;
    n.cal = model::load_calibration(n.path);  // throws naming file and line, or that it does not exist
  }
  return nodes;
}

// The seed's difference, legacy vs trtllm at 128 tokens, term by term, as the calibrated model
// predicts it on each node: the real TP2 node (the whole H200, NVLink, its measured calibration) and
// the emulated one (a 64-SM partition, local peers, its own calibration).
void print_term_difference(const std::vector<NodeCalibration>& nodes) {
  const model::KernelResources res{64, 0};  // the __launch_bounds__(1024) register cap, as arlab predict
  for (const NodeCalibration& n : nodes) {
    const std::string& node = n.node;
    const std::string& path = n.path;
    const model::GpuSpec& spec = n.spec;
    if (!n.cal) {
      std::printf("\n  (no calibration %s: the term-by-term seed explanation for the %s node is skipped)\n",
                  path.c_str(), node.c_str());
      continue;
    }
    const model::Calibration& cal = *n.cal;
    for (int hidden : {4096, 8192}) {
      const Problem p = seed::seed_problem(128, hidden, 2);
      const LaunchConfig lc = model::choose_launch_config(model::Policy::legacy, p, spec, res, cal);
      const LaunchConfig tc = model::choose_launch_config(model::Policy::trtllm, p, spec, res, cal);
      const model::Prediction pl = model::predict(p, lc, spec, cal, res);
      const model::Prediction pt = model::predict(p, tc, spec, cal, res);
      std::printf("\n  seed, %s, H %d, 128 tokens (calibration %s): legacy %s %.2f us vs trtllm %s %.2f us\n",
                  node.c_str(), hidden, path.c_str(), to_string(lc).c_str(), pl.total_us, to_string(tc).c_str(),
                  pt.total_us);
      std::printf("    %-14s %10s %10s %10s\n", "term", "legacy", "trtllm", "difference");
      for (size_t i = 0; i < pl.terms.size() && i < pt.terms.size(); ++i)
        std::printf("    %-14s %7.2f us %7.2f us %+7.2f us\n", pl.terms[i].name.c_str(), pl.terms[i].us, pt.terms[i].us,
                    pl.terms[i].us - pt.terms[i].us);
      for (const auto& [who, pr] : {std::pair<const char*, const model::Prediction*>{"legacy", &pl}, {"trtllm", &pt}})
        for (const model::Term& t : pr->terms)
          if (t.name == "push" || t.name == "reduce")
            std::printf("    %s %s: %s\n", who, t.name.c_str(), t.explanation.c_str());
    }
  }
}

// The in-process ratios (ratios.csv, common/ratio_schema.h), read before anything is written: "" gives
// none; a file given explicitly must exist; the default, when not found, gives none (a note says so).
struct SeedRatios {
  std::string path;
  bool found = false;
  std::vector<RatioRow> rows;
};

SeedRatios read_seed_ratios(const std::string& path, bool given) {
  SeedRatios r;
  r.path = path;
  if (path.empty() || (!given && !std::filesystem::exists(path))) return r;
  r.rows = read_rows<RatioRow>(path).rows;  // throws naming the file (and line) when it is missing or bad
  r.found = true;
  return r;
}

// The legacy / trtllm headline ratio at the seed token count with its bootstrap CI, per hidden size.
void print_seed_ratios(const SeedRatios& ratios) {
  if (!ratios.found) {
    std::printf("  (no ratio file%s%s: ratios above are of medians measured in separate groups)\n",
                ratios.path.empty() ? "" : " ", ratios.path.c_str());
    return;
  }
  for (const RatioRow& r : ratios.rows) {
    if (r.tokens != 128 || r.numerator != "legacy") continue;
    std::printf("  seed H %d, 128 tokens, in one process interleaved: legacy / %s = %.3f [%.3f, %.3f] "
                "(95 %% CI, %d paired rounds)\n",
                r.hidden, r.denominator.c_str(), r.ratio, r.ci_lo, r.ci_hi, r.rounds);
  }
  for (const RatioRow& r : ratios.rows) {
    if (r.tokens != 128 || r.numerator != seed::kFlashinferLegacyMember) continue;
    std::printf("  the library's kernel, H %d, 128 tokens, in one process interleaved: %s / %s = %.3f [%.3f, %.3f] "
                "(95 %% CI, %d paired rounds)\n",
                r.hidden, r.numerator.c_str(), r.denominator.c_str(), r.ratio, r.ci_lo, r.ci_hi, r.rounds);
  }
}

// The seed's two configurations on the library's own kernel (FlashInfer's one-shot, the rows of
// `arlab exp seed`'s flashinfer groups in `source`): its legacy and trtllm times at 128 tokens. The
// model does not predict the library (model/measurements.h skips its rows), so these rows appear only
// here, in the ratio lines and in the plot. `source` was read once already, so it parses.
void print_library_seed(const std::string& source) {
  std::map<std::pair<int, std::string>, const MeasurementRow*> at_seed;  // (hidden, policy) -> row
  const CsvRows<MeasurementRow> table = read_rows<MeasurementRow>(source);
  for (const MeasurementRow& r : table.rows)
    if (r.tokens == 128 && r.check == "pass" && row_kernel(r) == Impl::flashinfer) at_seed[{r.hidden, r.policy}] = &r;
  bool any = false;
  for (int h : {4096, 8192}) {
    auto l = at_seed.find({h, "legacy"}), t = at_seed.find({h, "trtllm"});
    if (l == at_seed.end() || t == at_seed.end()) continue;
    const double legacy_us = headline_us(*l->second), trtllm_us = headline_us(*t->second);
    if (!(legacy_us > 0) || !(trtllm_us > 0)) continue;
    std::printf("  the library's kernel (FlashInfer %s one-shot), H %d, 128 tokens: legacy %.2f us (%d/%d/%d) / "
                "trtllm %.2f us (%d/%d/%d) = %.2fx\n",
                flashinfer_version(), h, legacy_us, l->second->tpb, l->second->cluster, l->second->grid, trtllm_us,
                t->second->tpb, t->second->cluster, t->second->grid, legacy_us / trtllm_us);
    any = true;
  }
  if (!any)
    std::printf("  (%s holds no passing rows of the library's own kernel at legacy and trtllm, 128 tokens)\n",
                source.c_str());
}

// Keeps an earlier run's file before it is written again: a regular file at `p` is renamed to
// NAME.<modification time, UTC>.EXT, or NAME.<time>.<k>.EXT when that name is taken (two runs in the
// same second): nothing is ever renamed over. A symbolic link stays (its target's bytes are copied
// aside; the new file replaces the target through it); a device or FIFO holds nothing to keep.
void move_aside(const std::filesystem::path& p) {
  namespace fs = std::filesystem;
  const OutputTarget target = resolve_output_target(p.string());
  if (!target.exists || !target.regular) return;
  const bool link = fs::is_symlink(p);
  struct stat st {};
  ::stat(target.path.c_str(), &st);
  char stamp[32] = "unknown-time";  // its modification time, UTC, to the second: 20260112T093015Z
  std::tm utc{};
  if (::gmtime_r(&st.st_mtime, &utc) != nullptr) std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  for (int k = 0;; ++k) {
    fs::path aside = p;
    aside.replace_extension("." + std::string(stamp) + (k > 0 ? "." + std::to_string(k) : "") +
                            p.extension().string());
    std::error_code ec;
    if (link) {
      if (!fs::copy_file(target.path, aside, fs::copy_options::none, ec)) {
        if (ec == std::errc::file_exists) continue;
        throw InvalidArgument("cannot keep the previous " + p.string() + " as " + aside.string() + ": " + ec.message());
      }
    } else if (::link(p.c_str(), aside.c_str()) == 0) {  // fails, never replaces, when `aside` exists
      ::unlink(p.c_str());
    } else if (errno == EEXIST) {
      continue;
    } else if (!fs::exists(aside)) {  // a file system without hard links
      fs::rename(p, aside);
    } else {
      continue;
    }
    std::printf("  kept the previous %s as %s\n", p.string().c_str(), aside.string().c_str());
    return;
  }
}

void print_seed_table(const std::vector<model::MeasuredRow>& rows, const model::ValidationReport& rep) {
  // (hidden, policy) -> (measured, predicted) at the seed token count, plus 1-token figures.
  std::printf("\n  %-6s %-10s %7s %-12s %12s %12s %8s\n", "H", "policy", "tokens", "tpb/cs/grid", "measured_us",
              "predicted_us", "APE%");
  std::map<std::pair<int, std::string>, double> seed_measured;
  for (const model::RowResult& r : rep.rows) {
    const model::MeasuredRow& m = rows[r.row];
    if (m.policy == "explicit" || (m.problem.tokens != 128 && m.problem.tokens != 1)) continue;
    const std::string cfg =
        std::to_string(m.config.tpb) + "/" + std::to_string(m.config.cluster) + "/" + std::to_string(m.config.grid);
    std::printf("  %-6d %-10s %7d %-12s %12.2f %12.2f %8.1f%s\n", m.problem.hidden, m.policy.c_str(), m.problem.tokens,
                cfg.c_str(), m.kernel_us, r.predicted ? r.predicted_us : NAN, r.predicted ? 100.0 * r.ape : NAN,
                r.status == "ok" ? "" : ("  " + r.status).c_str());
    if (m.problem.tokens == 128) seed_measured[{m.problem.hidden, m.policy}] = m.kernel_us;
  }
  for (int h : {4096, 8192}) {
    auto l = seed_measured.find({h, "legacy"}), t = seed_measured.find({h, "trtllm"});
    if (l != seed_measured.end() && t != seed_measured.end() && t->second > 0)
      std::printf("  seed H %d, 128 tokens: legacy %.2f us / trtllm %.2f us = %.2fx "
                  "(peer library: 26.8 / 9.8 = 2.73x)\n",
                  h, l->second, t->second, l->second / t->second);
  }
}

// The options only measuring uses, and those only the predict mode uses: a run of one mode refuses
// the other's (cli/cli_checks.h refuse_unused_options).
std::vector<std::string> measure_only_options() {
  std::vector<std::string> names = timing_option_names();
  for (const char* n : {"--device", "--seed", "--timeout-ms"}) names.emplace_back(n);
  return names;
}
const std::vector<std::string> kPredictOnlyOptions = {"--data", "--ratios"};

void run_seed(const SeedOptions& o, const CLI::App& sub) {
  if (o.mode != "auto" && o.mode != "measure" && o.mode != "predict")
    throw InvalidArgument("--mode '" + o.mode + "' (expected auto, measure or predict)");
  const bool gpu = session::gpu_visible();
  if (o.mode == "measure" && !gpu)
    throw std::runtime_error("--mode measure needs a GPU and a build with CUDA; none is available here");
  const bool measure = o.mode == "measure" || (o.mode == "auto" && gpu);
  const std::string mode_text =
      measure ? "`arlab seed` measures (--mode " + o.mode + (o.mode == "auto" ? ": a GPU is visible" : "") + ")"
              : "`arlab seed` predicts beside measured rows (--mode " + o.mode +
                    (o.mode == "auto" ? ": no GPU is visible" : "") + ")";
  refuse_unused_options(sub, options_except(sub, measure ? kPredictOnlyOptions : measure_only_options()), mode_text);
  const harness::TimingOptions timing = timing_options(o.timing);  // used in measure mode (predict: the defaults)
  const std::string measured_csv = (std::filesystem::path(o.out_dir) / "measured.csv").string();
  const std::string validation_csv = (std::filesystem::path(o.out_dir) / "validation.csv").string();
  const std::string ratios_csv = (std::filesystem::path(o.out_dir) / "ratios.csv").string();
  const seed::SeedSweep sweep;

  const bool committed = o.data == SeedOptions{}.data;
  std::printf("arlab seed: mode %s (%s)\n", measure ? "measure" : "predict",
              measure     ? "a GPU is visible: measuring on the emulated node"
              : committed ? "no GPU: the model's predictions beside the committed H200 measurements"
                          : "the model's predictions beside the measurements in --data");
  std::printf("  problem: Llama-3 decode, TP%d, bf16 ar_res_rms one-shot, pairwise, eps 1e-5; H {", sweep.nranks);
  for (size_t i = 0; i < sweep.hidden.size(); ++i) std::printf("%s%d", i ? ", " : "", sweep.hidden[i]);
  std::printf("}; tokens {");
  for (size_t i = 0; i < sweep.tokens.size(); ++i) std::printf("%s%d", i ? ", " : "", sweep.tokens[i]);
  std::printf("}; policies legacy, trtllm, occupancy, model; explicit sweep at 128 tokens; the library's "
              "kernel (FlashInfer %s) at legacy and trtllm\n", flashinfer_version());
  const bool auto_cal = o.calibration == "auto";
  const std::string cal_path = auto_cal ? (std::filesystem::exists(kMeasuredEmulatedCalibration)
                                                ? std::string(kMeasuredEmulatedCalibration)
                                                : std::string())
                                        : o.calibration;
  std::printf("  calibration: %s%s; out: %s\n", cal_path.empty() ? "built-in defaults" : cal_path.c_str(),
              auto_cal ? (cal_path.empty() ? std::string(" (") + kMeasuredEmulatedCalibration +
                                                 " not found from this directory)"
                                           : std::string(" (the emulated node's, measured)"))
                                .c_str()
                       : "",
              o.out_dir.c_str());

  // Every input is read and checked, and the rows judged, before the output folder is made: a bad
  // --data, --ratios or --calibration, or rows the model cannot use, leave nothing behind.
  const model::Calibration cal = cal_path.empty() ? model::default_calibration() : model::load_calibration(cal_path);
  const std::vector<NodeCalibration> term_cals = node_calibrations(o);
  const std::vector<std::string> inputs = {o.data, cal_path, o.ratios, o.calibration_nvlink, o.calibration_emulated};
  if (std::filesystem::is_directory(o.out_dir))  // a folder still to be made holds no file to clash with
    check_output_path(validation_csv, inputs, "seed output");
  std::string source = o.data;
  SeedRatios ratios;
  std::vector<model::MeasuredRow> rows;
  std::vector<std::string> failed;
  if (!measure) {
    std::printf("  measurements: %s (see data/h200/README.md for their provenance)\n", source.c_str());
    rows = model::read_measurements(source);
    for (const model::MeasuredRow& r : rows) {
      const std::string mismatch = seed::seed_row_mismatch(r, sweep);
      if (!mismatch.empty())
        throw CsvError(source, r.line, "", "not a row of the seed problem: " + mismatch);
    }
    ratios = read_seed_ratios(o.ratios, o.ratios_given);
  } else {
    std::printf("  measuring: `arlab exp seed`'s cases; %s; seed %llu, device %d\n", describe(o.timing).c_str(),
                o.input_seed, o.device);
    move_aside(measured_csv);
    move_aside(ratios_csv);
    session::ExpRequest req;
    req.output_dir = o.out_dir;  // made by the session once the GPU is found
    req.name = "seed";
    req.csv_path = measured_csv;
    req.ratios_path = ratios_csv;
    req.nranks = {sweep.nranks};
    req.base.timing = timing;
    req.base.seed = o.input_seed;
    req.base.device = o.device;
    req.base.timeout_ms = o.timeout_ms;
    req.base.calibration = cal;
    req.base.calibration_source = cal_path.empty() ? "built-in priors" : cal_path;
    session::run_experiment(req);
    source = measured_csv;
    ratios = read_seed_ratios(ratios_csv, false);
    rows = model::read_measurements(source);
    for (const model::MeasuredRow& r : rows)
      if (!r.check_passed)
        failed.push_back("line " + std::to_string(r.line) + ": H " + std::to_string(r.problem.hidden) + " tokens " +
                         std::to_string(r.problem.tokens) + " " + r.policy + " " + to_string(r.config));
  }

  model::ValidateOptions vo;
  vo.source = source;
  const model::ValidationReport rep = model::validate_measurements(rows, cal, vo);
  model::require_usable_rows(rows, rep, source);
  MadeFolders folder(o.out_dir);  // removed again (while empty) when the write fails
  move_aside(validation_csv);
  model::write_validation_csv(rows, rep, validation_csv);
  folder.keep();
  print_seed_table(rows, rep);
  print_library_seed(source);
  print_seed_ratios(ratios);
  std::printf("\n  model vs measurement over %d rows (%d problems): MAPE %.1f%%, median APE %.1f%%, Spearman %.3f\n",
              rep.rows_used, rep.problems, 100.0 * rep.mape, 100.0 * rep.median_ape, rep.spearman_all);
  if (rep.rows_with_skewfree > 0)
    std::printf("  (times above: the skew-free median; against the max-over-ranks median, %d rows: MAPE %.1f%%, "
                "median APE %.1f%%)\n", rep.rows_with_skewfree, 100.0 * rep.mape_max_over_ranks,
                100.0 * rep.median_ape_max_over_ranks);
  for (const model::PolicyRegret& g : rep.regrets)
    std::printf("  regret %-10s mean %.1f%% max %.1f%% (%d problems; %d picked the best measured)\n", g.policy.c_str(),
                100.0 * g.mean, 100.0 * g.max, g.evaluated, g.zero_regret);
  print_term_difference(term_cals);
  std::printf("  wrote %s%s\n", validation_csv.c_str(),
              measure ? (", " + measured_csv + " and " + ratios_csv).c_str() : "");
  if (!failed.empty()) {
    std::printf("\n  %zu case(s) FAILED the correctness gate:\n", failed.size());
    for (const std::string& f : failed) std::printf("    %s\n", f.c_str());
    throw std::runtime_error(std::to_string(failed.size()) + " seed case(s) failed the correctness gate (listed "
                             "above; their rows say check = fail)");
  }
}

}  // namespace

void add_seed_command(CLI::App& app) {
  auto o = std::make_shared<SeedOptions>();
  CLI::App* sub = app.add_subcommand(
      "seed", "the main experiment: TP2 Llama-3 decode fused all-reduce, measured (GPU) or committed H200 data, "
              "beside the model's predictions");
  sub->add_option("--mode", o->mode, "auto (measure when a GPU is visible), measure or predict")->capture_default_str();
  sub->add_option("--data", o->data, "committed measurements used in predict mode")->capture_default_str();
  sub->add_option("--out-dir", o->out_dir, "where measured.csv and validation.csv go")
      ->capture_default_str()
      ->check(non_empty_path());
  sub->add_option("--calibration", o->calibration,
                  "model calibration CSV for the predictions ('' = the built-in priors; auto = the emulated "
                  "node's measured data/calibration/h200_emulated.csv when found, else the priors)")
      ->capture_default_str();
  CLI::Option* nvlink = sub->add_option("--calibration-nvlink", o->calibration_nvlink,
                  "measured calibration of the real node, for the term-by-term seed explanation ('' skips it; the "
                  "default is skipped when not found from this directory, an explicit file must load)")
      ->capture_default_str();
  CLI::Option* emulated = sub->add_option("--calibration-emulated", o->calibration_emulated,
                  "measured calibration of the emulated node, for the same (as --calibration-nvlink)")
      ->capture_default_str();
  sub->add_option("--device", o->device, "CUDA device (measure mode)")
      ->capture_default_str()
      ->check(int_at_least(0));
  CLI::Option* ratios =
      sub->add_option("--ratios", o->ratios,
                      "committed in-process ratios shown in predict mode ('' : none; the default is skipped with a "
                      "note when not found from this directory, an explicit file must load)")
          ->capture_default_str();
  add_timing_options(sub, o->timing);
  sub->add_option("--seed", o->input_seed, "input seed")->capture_default_str()->check(unsigned_64());
  // 1e9 ms (~11 days): as `arlab run --timeout-ms`.
  sub->add_option("--timeout-ms", o->timeout_ms, "bound of every device spin-wait")
      ->capture_default_str()
      ->check(finite_in(0, 1e9, /*lo_open=*/true));
  sub->callback([o, sub, nvlink, emulated, ratios] {
    o->nvlink_given = nvlink->count() > 0;
    o->emulated_given = emulated->count() > 0;
    o->ratios_given = ratios->count() > 0;
    run_seed(*o, *sub);
  });
}

}  // namespace arlab::cli
