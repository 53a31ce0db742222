// Reading and writing measurement rows (common/measurement_schema.h) for validate / fit.
#include "common/build_info.h"
#include "model/measurements.h"

#include <cmath>
#include <fstream>

#include "common/csv.h"
#include "common/measurement_schema.h"
#include "model/csv_read.h"

namespace arlab::model {

namespace {
enum Col {
  cGpu, cLink, cSm, cN, cDtype, cPattern, cAlgo, cAcc, cTokens, cHidden, cPolicy,
  cTpb, cCluster, cGrid, cVpt, cPdl, cRegs, cCheck, cKernelUs, cSkewFreeUs, kCols
};

// Parses an enum-valued cell with the shared parse_* function, re-throwing with the location.
template <class F>
auto parse_cell(const CsvColumns<kCols>& csv, unsigned col, F parse) -> decltype(parse(std::string())) {
  try {
    return parse(csv.text(col));
  } catch (const InvalidArgument& e) {
    csv.fail(col, e.what());
  }
}
}  // namespace

std::vector<MeasuredRow> read_measurements(const std::string& path) {
  // skewfree_us_median is optional: files of other tools may lack it (validate then reports one figure).
  CsvColumns<kCols> csv(path, OptionalColumns{{"skewfree_us_median"}}, "gpu", "link", "sm_per_rank", "nranks",
                        "dtype", "pattern", "algo", "acc", "tokens", "hidden", "policy", "tpb", "cluster", "grid",
                        "vecs_per_thread", "pdl", "regs", "check", "kernel_us_median", "skewfree_us_median");
  std::vector<MeasuredRow> rows;
  while (csv.next()) {
    MeasuredRow r;
    r.line = csv.line();
    r.gpu = csv.text(cGpu);
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
    r.config.tpb = csv.integer(cTpb);
    r.config.cluster = csv.integer(cCluster);
    r.config.grid = csv.integer(cGrid);
    r.config.vecs_per_thread = csv.integer(cVpt);
    r.config.pdl = csv.integer(cPdl) != 0;
    r.config.algo = r.problem.algo;
    r.resources.regs_per_thread = csv.integer(cRegs);
    r.check_passed = csv.text(cCheck) == "pass";
    r.max_over_ranks_us = csv.number(cKernelUs);
    if (csv.has(cSkewFreeUs)) {
      const std::string& t = csv.text(cSkewFreeUs);
      if (t != "nan" && !t.empty()) r.skewfree_us = csv.number(cSkewFreeUs);  // "nan": not defined on that node
    }
    r.kernel_us = std::isfinite(r.skewfree_us) && r.skewfree_us > 0 ? r.skewfree_us : r.max_over_ranks_us;
    if (r.sm_per_rank < 1) csv.fail(cSm, "sm_per_rank = " + csv.text(cSm) + " must be >= 1");
    if (r.resources.regs_per_thread < 0) csv.fail(cRegs, "regs = " + csv.text(cRegs) + " must be >= 0");
    if (!(r.max_over_ranks_us > 0)) csv.fail(cKernelUs, "kernel time " + csv.text(cKernelUs) + " us must be > 0");
    try {
      validate(r.problem);
    } catch (const InvalidArgument& e) {
      csv.fail(cTokens, std::string("invalid problem: ") + e.what());
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void write_measurements(const std::vector<MeasuredRow>& rows, const std::string& path, const std::string& experiment,
                        const std::string& timing_source) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw InvalidArgument("cannot open " + path + " for writing");
  out << csv_join(measurement_header()) << '\n';
  for (const MeasuredRow& r : rows) {
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
    out << csv_join(to_cells(m)) << '\n';
  }
  if (!out) throw InvalidArgument("write to " + path + " failed");
}

GpuSpec spec_for_row(const MeasuredRow& row, const std::string& gpu_override) {
  const std::string preset = gpu_override.empty() ? preset_for_device_name(row.gpu) : gpu_override;
  if (preset.empty())
    throw InvalidArgument("line " + std::to_string(row.line) + ": gpu '" + row.gpu +
                          "' matches no GPU preset; pass --gpu PRESET");
  const GpuSpec whole = gpu_preset(preset);
  if (row.sm_per_rank == whole.sm_count) {
    GpuSpec s = whole;
    if (row.link == LinkKind::local) {  // one rank owning the whole GPU, peers local: keep SMs, no link
      s.link = LinkKind::local;
      s.link_gbps = 0;
    }
    return s;
  }
  GpuSpec s = sm_partition_with_count(whole, row.sm_per_rank, row.problem.nranks);
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
  if (it == specs_.end()) it = specs_.emplace(key, spec_for_row(row, override_)).first;
  return it->second;
}

std::string problem_key(const MeasuredRow& r) {
  const Problem& p = r.problem;
  return r.gpu + "|" + to_string(r.link) + "|" + std::to_string(r.sm_per_rank) + "|" + std::to_string(p.nranks) + "|" +
         to_string(p.dtype) + "|" + to_string(p.pattern) + "|" + to_string(p.acc) + "|" + to_string(p.algo) + "|" +
         std::to_string(p.tokens) + "|" + std::to_string(p.hidden);
}

}  // namespace arlab::model
