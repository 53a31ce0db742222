// Reading and writing measurement rows (common/measurement_schema.h) for validate / fit.
#include "common/build_info.h"
#include "model/measurements.h"

#include <cmath>
#include <limits>

#include "common/csv.h"
#include "common/fmt.h"
#include "common/launch_config.h"
#include "common/measurement_schema.h"
#include "common/output_file.h"
#include "model/csv_read.h"
#include "model/policies.h"

namespace arlab::model {

namespace {
enum Col {
  cGpu, cLink, cSm, cN, cDtype, cPattern, cAlgo, cAcc, cTokens, cHidden, cPolicy,
  cTpb, cCluster, cGrid, cVpt, cPdl, cRegs, cCheck, cKernelUs, cSkewFreeUs, cImpl, cVariant, kCols
};

// Registers per thread CUDA allows a kernel (the ISA's register file per thread, every arch since sm_35).
constexpr int kMaxRegistersPerThread = 255;
// The longest kernel time a row may record: 10 s, far beyond any fused all-reduce (the committed
// H200 rows reach 2 ms; every device wait times out at --timeout-ms, 2 s by default). Larger
// values are corrupt cells, and would print as hundreds of digits.
constexpr double kMaxKernelUs = 1e7;

// Parses a label cell with the shared parse_* function (which lists the valid labels), re-throwing
// with the location; a cell too long to be any label is refused without being echoed whole.
template <class F>
auto parse_cell(const CsvColumns<kCols>& csv, unsigned col, F parse) -> decltype(parse(std::string())) {
  const std::string& text = csv.text(col);
  if (text.size() > kMaxQuotedCellChars) csv.fail(col, "'" + cut_for_message(text) + "' is not a valid label");
  try {
    return parse(text);
  } catch (const InvalidArgument& e) {
    csv.fail(col, e.what());
  }
}

// The correctness-gate verdicts a row may carry (common/measurement_schema.h `check`).
bool parse_check(const std::string& s) {
  if (s == "pass") return true;
  if (s == "fail" || s == "skipped") return false;
  throw InvalidArgument("unknown check '" + s + "' (expected pass, fail or skipped)");
}

bool parse_pdl(const std::string& s) {
  if (s == "0" || s == "1") return s == "1";
  throw InvalidArgument("pdl = '" + s + "' (expected 0 or 1)");
}

// A policy label as `arlab run` writes it: a policy name, or "policy/variant" when one run measured
// several kernel variants (`--kernel reference,lean`: "trtllm/lean"). Returns the variant the label
// names, reference when it names none; throws InvalidArgument naming the label otherwise.
struct PolicyLabel {
  Policy policy = Policy::trtllm;
  bool names_variant = false;
  Impl variant = Impl::reference;
};
PolicyLabel parse_policy_label(const std::string& text) {
  PolicyLabel label;
  const size_t slash = text.find('/');
  label.policy = parse_policy(text.substr(0, slash));
  if (slash != std::string::npos) {
    label.names_variant = true;
    label.variant = parse_kernel_body(text.substr(slash + 1));
  }
  return label;
}

// A kernel time cell: a finite number in (0, kMaxKernelUs].
double kernel_time(const CsvColumns<kCols>& csv, unsigned col) {
  const double us = csv.number(col);
  if (!(us > 0) || us > kMaxKernelUs)
    csv.fail(col, "kernel time " + cut_for_message(csv.text(col)) + " us is outside (0, " + fmt("%g", kMaxKernelUs) +
                      "] us");
  return us;
}

// The column of the measurement file that holds the Problem field a violation names.
unsigned column_of(const std::string& problem_field) {
  if (problem_field == "nranks") return cN;
  if (problem_field == "hidden") return cHidden;
  if (problem_field == "dtype") return cDtype;
  return cTokens;  // tokens (eps and scale are not read: they keep their valid defaults)
}
}  // namespace

std::vector<MeasuredRow> read_measurements(const std::string& path) {
  // skewfree_us_median is optional: files of other tools may lack it (validate then reports one figure).
  // implementation is optional (files written before the baselines existed hold fused rows only);
  // baseline rows (unfused, nccl) are skipped: the model predicts fused kernels only.
  // kernel_variant is optional (files written before the lean kernel existed ran the reference
  // body); it goes into each row's configuration, so the model predicts a lean row as lean.
  CsvColumns<kCols> csv(path, OptionalColumns{{"skewfree_us_median", "implementation", "kernel_variant"}}, "gpu",
                        "link", "sm_per_rank", "nranks", "dtype", "pattern", "algo", "acc", "tokens", "hidden",
                        "policy", "tpb", "cluster", "grid", "vecs_per_thread", "pdl", "regs", "check",
                        "kernel_us_median", "skewfree_us_median", "implementation", "kernel_variant");
  std::vector<MeasuredRow> rows;
  while (csv.next()) {
    // Baseline rows are skipped: the model predicts the fused kernel bodies (common/implementations.h).
    // A bad kernel_variant cell is reported there; anything else about the pair at implementation.
    const bool variant_known = !csv.has(cVariant) || [&] {
      for (const ImplRow& row : implementation_table())
        if (csv.text(cVariant) == row.csv_kernel_variant) return true;
      return false;
    }();
    const Impl impl = parse_cell(csv, !variant_known ? cVariant : csv.has(cImpl) ? cImpl : cPolicy, [&](const std::string&) {
      return implementation_from_csv(csv.has(cImpl) ? csv.text(cImpl) : "fused", csv.has(cVariant) ? csv.text(cVariant) : "");
    });
    if (!is_kernel_body(impl)) continue;
    MeasuredRow r;
    r.line = csv.line();
    r.gpu = csv.text(cGpu);
    if (r.gpu.size() > kMaxQuotedCellChars) csv.fail(cGpu, "'" + cut_for_message(r.gpu) + "' is not a GPU name");
    r.link = parse_cell(csv, cLink, parse_link);
    r.sm_per_rank = csv.integer(cSm);
    r.problem.nranks = csv.integer(cN);
    r.problem.dtype = parse_cell(csv, cDtype, parse_dtype);
    r.problem.pattern = parse_cell(csv, cPattern, parse_pattern);
    r.problem.algo = parse_cell(csv, cAlgo, parse_algorithm);
    r.problem.acc = parse_cell(csv, cAcc, parse_accumulation);
    r.problem.tokens = csv.integer(cTokens);
    r.problem.hidden = csv.integer(cHidden);
    r.policy = csv.text(cPolicy);
    const PolicyLabel label = parse_cell(csv, cPolicy, parse_policy_label);  // a known label (the row keeps its text)
    r.config.tpb = csv.integer(cTpb);
    r.config.cluster = csv.integer(cCluster);
    r.config.grid = csv.integer(cGrid);
    r.config.vecs_per_thread = csv.integer(cVpt);
    r.config.pdl = parse_cell(csv, cPdl, parse_pdl);
    r.config.algo = r.problem.algo;
    r.config.impl = csv.has(cVariant) ? impl : label.variant;
    if (label.names_variant && label.variant != r.config.impl)
      csv.fail(cPolicy, "policy label '" + r.policy + "' names the " + to_string(label.variant) +
                            " kernel, the row's kernel_variant is " + to_string(r.config.impl));
    if (!runs_algorithm(r.config.impl, r.config.algo))
      csv.fail(csv.has(cVariant) ? cVariant : cPolicy,
               std::string("kernel_variant ") + to_string(r.config.impl) + " with algo " +
                   to_string(r.config.algo) + ": the " + to_string(r.config.impl) + " kernel has no " +
                   to_string(r.config.algo) + " body");
    r.resources.regs_per_thread = csv.integer(cRegs);
    r.check_passed = parse_cell(csv, cCheck, parse_check);
    r.max_over_ranks_us = kernel_time(csv, cKernelUs);
    if (csv.has(cSkewFreeUs)) {
      const std::string& t = csv.text(cSkewFreeUs);
      if (t != "nan" && !t.empty()) r.skewfree_us = kernel_time(csv, cSkewFreeUs);  // "nan": not defined on that node
    }
    r.kernel_us = std::isfinite(r.skewfree_us) && r.skewfree_us > 0 ? r.skewfree_us : r.max_over_ranks_us;
    if (r.sm_per_rank < 1) csv.fail(cSm, "sm_per_rank = " + csv.text(cSm) + " must be >= 1");
    if (r.resources.regs_per_thread < 0 || r.resources.regs_per_thread > kMaxRegistersPerThread)
      csv.fail(cRegs, "regs = " + csv.text(cRegs) + " is outside [0, " + std::to_string(kMaxRegistersPerThread) +
                          "] registers per thread");
    const ProblemViolation bad = problem_violation(r.problem);
    if (!bad.field.empty()) csv.fail(column_of(bad.field), "invalid problem: " + bad.message);
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {
MeasurementRow measurement_row(const MeasuredRow& r, const std::string& experiment, const std::string& timing_source) {
  MeasurementRow m;
  m.experiment = experiment;
  m.git_sha = arlab::git_sha();
  m.gpu = r.gpu;
  m.topology = r.link == LinkKind::local ? "emulated" : "p2p";
  m.link = to_string(r.link);
  m.sm_per_rank = r.sm_per_rank;
  m.nranks = r.problem.nranks;
  m.dtype = to_string(r.problem.dtype);
  m.pattern = to_string(r.problem.pattern);
  m.algo = to_string(r.config.algo);
  m.acc = to_string(r.problem.acc);
  m.tokens = r.problem.tokens;
  m.hidden = r.problem.hidden;
  m.policy = r.policy;
  m.tpb = r.config.tpb;
  m.cluster = r.config.cluster;
  m.grid = r.config.grid;
  m.vecs_per_thread = r.config.vecs_per_thread;
  m.pdl = r.config.pdl ? 1 : 0;
  m.regs = r.resources.regs_per_thread;
  m.timing_source = timing_source;
  m.kernel_us_median = r.max_over_ranks_us > 0 ? r.max_over_ranks_us : r.kernel_us;
  m.skewfree_us_median = r.skewfree_us;
  m.check = r.check_passed ? "pass" : "fail";
  m.implementation = implementation(r.config.impl).csv_implementation;  // the model's rows are fused kernels
  m.allreduce_us_median = std::numeric_limits<double>::quiet_NaN();
  m.kernel_variant = implementation(r.config.impl).csv_kernel_variant;
  return m;
}
}  // namespace

void write_measurements(const std::vector<MeasuredRow>& rows, const std::string& path, const std::string& experiment,
                        const std::string& timing_source) {
  write_csv_file(path, measurement_header(), [&](std::ostream& out) {
    for (const MeasuredRow& r : rows) out << csv_join(to_cells(measurement_row(r, experiment, timing_source))) << '\n';
  });
}

void append_measurements(const std::vector<MeasuredRow>& rows, const std::string& path, const std::string& experiment,
                         const std::string& timing_source) {
  CsvAppender out(path, measurement_header());
  for (const MeasuredRow& r : rows) out.append(to_cells(measurement_row(r, experiment, timing_source)));
}

int rows_with_other_timing_source(const std::string& path, const std::string& timing_source) {
  CsvColumns<1> csv(path, "timing_source");
  int n = 0;
  while (csv.next()) n += csv.text(0) != timing_source ? 1 : 0;
  return n;
}

GpuSpec spec_for_row(const MeasuredRow& row, const std::string& gpu_override, const std::string& source) {
  // Errors name the row: file:line and column when the rows' file is known.
  auto fail = [&](const std::string& column, const std::string& what) -> GpuSpec {
    if (!source.empty()) throw CsvError(source, row.line, column, what);
    throw InvalidArgument("line " + std::to_string(row.line) + ": " + what);
  };
  const std::string preset = gpu_override.empty() ? preset_for_device_name(row.gpu) : gpu_override;
  if (preset.empty())
    return fail("gpu", "gpu '" + cut_for_message(row.gpu) + "' matches no GPU preset; pass --gpu PRESET");
  GpuSpec whole;
  try {
    whole = gpu_preset(preset);
  } catch (const InvalidArgument& e) {
    return fail("gpu", e.what());
  }
  if (row.sm_per_rank == whole.sm_count) {
    GpuSpec s = whole;
    if (row.link == LinkKind::local) {  // one rank owning the whole GPU, peers local: keep SMs, no link
      s.link = LinkKind::local;
      s.link_gbps = 0;
    }
    return s;
  }
  GpuSpec s;
  try {
    s = sm_partition_with_count(whole, row.sm_per_rank, row.problem.nranks);
  } catch (const InvalidArgument& e) {
    return fail("sm_per_rank", e.what());
  }
  if (row.link == LinkKind::nvlink) {
    s.link = LinkKind::nvlink;
    s.link_gbps = whole.link_gbps;
  }
  return s;
}

const GpuSpec& SpecCache::get(const MeasuredRow& row) {
  const std::string key = row.gpu + "|" + std::to_string(row.sm_per_rank) + "|" + std::to_string(row.problem.nranks) +
                          "|" + to_string(row.link);
  auto it = specs_.find(key);
  if (it == specs_.end()) it = specs_.emplace(key, spec_for_row(row, override_, source_)).first;
  return it->second;
}

std::string problem_key(const MeasuredRow& r) {
  const Problem& p = r.problem;
  return r.gpu + "|" + to_string(r.link) + "|" + std::to_string(r.sm_per_rank) + "|" + std::to_string(p.nranks) + "|" +
         to_string(p.dtype) + "|" + to_string(p.pattern) + "|" + to_string(p.acc) + "|" + to_string(p.algo) + "|" +
         std::to_string(p.tokens) + "|" + std::to_string(p.hidden);
}

}  // namespace arlab::model
