// check_outputs and GateReport::summary (reference/compare.h).
#include "reference/compare.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <limits>
#include <sstream>

#include "reference/error_metrics.h"
#include "reference/ulp.h"

namespace arlab::ref {

namespace {

std::string hex(uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

std::string value_text(float v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string element_text(const char* output, int rank, int64_t index, int64_t hidden) {
  return std::string(output) + " rank " + std::to_string(rank) + " index " + std::to_string(index) + " (token " +
         std::to_string(index / hidden) + ", column " + std::to_string(index % hidden) + ")";
}

// Keeps the first failure seen (outputs in gate order, ranks ascending, index ascending).
struct FirstFailure {
  std::string text;
  void note(const std::string& t) {
    if (text.empty()) text = t;
  }
};

void check_tensor_size(const char* output, int rank, const HostTensor& got, const HostTensor& want) {
  if (got.dtype != want.dtype || got.rows != want.rows || got.cols != want.cols ||
      got.bytes.size() != want.bytes.size())
    throw InvalidArgument(std::string("check_outputs: rank ") + std::to_string(rank) + " " + output + " is " +
                          to_string(got.dtype) + " [" + std::to_string(got.rows) + ", " + std::to_string(got.cols) +
                          "] (" + std::to_string(got.bytes.size()) + " bytes), expected " + to_string(want.dtype) +
                          " [" + std::to_string(want.rows) + ", " + std::to_string(want.cols) + "] (" +
                          std::to_string(want.bytes.size()) + " bytes)");
}

void check_bytes_size(const char* output, int rank, size_t got, size_t want) {
  if (got != want)
    throw InvalidArgument(std::string("check_outputs: rank ") + std::to_string(rank) + " " + output + " has " +
                          std::to_string(got) + " bytes, expected " + std::to_string(want));
}

std::string tensor_mismatch_text(const char* output, int rank, int64_t i, const HostTensor& want, uint32_t w,
                                 uint32_t g) {
  const int digits = dtype_bytes(want.dtype) * 2;
  return element_text(output, rank, i, want.cols) + ": expected " + hex(w, digits) + " (" +
         value_text(bits_to_float(want.dtype, w)) + "), got " + hex(g, digits) + " (" +
         value_text(bits_to_float(want.dtype, g)) + ")";
}

// Bit-exact comparison (NaN vs NaN counts as exact); returns the number of mismatching elements.
int64_t count_exact_mismatches(const char* output, int rank, const HostTensor& want, const HostTensor& got,
                               FirstFailure& first) {
  if (want.bytes == got.bytes) return 0;  // the common case, at memcmp speed
  int64_t mismatches = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const uint32_t w = want.bits(i), g = got.bits(i);
    if (w == g || (is_nan_bits(want.dtype, w) && is_nan_bits(want.dtype, g))) continue;
    ++mismatches;
    first.note(tensor_mismatch_text(output, rank, i, want, w, g) + ", must be bit-exact");
  }
  return mismatches;
}

void compare_norm(int rank, const HostTensor& want, const HostTensor& got, GateReport& r, FirstFailure& first) {
  if (want.bytes == got.bytes) return;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const uint32_t w = want.bits(i), g = got.bits(i);
    if (w == g) continue;
    const int64_t d = ulp_distance(want.dtype, w, g);
    if (d == 0) continue;  // two NaNs
    r.norm_max_ulp = static_cast<int>(std::max<int64_t>(r.norm_max_ulp, std::min<int64_t>(d, INT_MAX)));
    if (d <= r.norm_ulp_limit) {
      ++r.norm_nonexact;
      continue;
    }
    ++r.norm_over_limit;
    first.note(tensor_mismatch_text("norm_out", rank, i, want, w, g) + ": " +
               (d == kNanDistance ? std::string("NaN against a number") : std::to_string(d) + " ulp") + " (limit " +
               std::to_string(r.norm_ulp_limit) + ")");
  }
}

// Counts one code whose bits differ from the reference; `distance` in quantization steps (0 for
// +0 against -0, which is not bit-exact but no step away).
void count_code(int64_t distance, int64_t& nonexact, int64_t& over_1step) {
  ++nonexact;
  if (distance > 1) ++over_1step;
}

std::string step_text(int64_t d) {
  return d == kNanDistance ? std::string("NaN against a number") : std::to_string(d) + " steps";
}

// Every e4m3 byte that differs (NaN against NaN is exact) is counted; one more than one step off is
// a failure, named by where(i) and the expected (`noun` + byte) and got bytes.
template <typename Where>
void compare_e4m3_bytes(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got, int64_t& nonexact,
                        int64_t& over_1step, FirstFailure& first, const char* noun, Where&& where) {
  if (want == got) return;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i] || (is_e4m3_nan(want[i]) && is_e4m3_nan(got[i]))) continue;
    const int64_t d = e4m3_step_distance(want[i], got[i]);
    count_code(d, nonexact, over_1step);
    if (d > 1)
      first.note(where(i) + ": expected " + noun + hex(want[i], 2) + ", got " + hex(got[i], 2) + ": " +
                 step_text(d) + " (limit 1)");
  }
}

void compare_fp8(const Problem& p, int rank, const std::vector<uint8_t>& want, const std::vector<uint8_t>& got,
                 GateReport& r, FirstFailure& first) {
  compare_e4m3_bytes(want, got, r.quant_nonexact, r.quant_over_1step, first, "code ", [&](size_t i) {
    return element_text("quant_out (fp8)", rank, static_cast<int64_t>(i), p.hidden);
  });
}

void compare_fp4(const Problem& p, int rank, const std::vector<uint8_t>& want, const std::vector<uint8_t>& got,
                 GateReport& r, FirstFailure& first) {
  if (want == got) return;
  for (size_t byte = 0; byte < want.size(); ++byte) {
    if (want[byte] == got[byte]) continue;
    for (int nibble = 0; nibble < 2; ++nibble) {
      const auto w = static_cast<uint8_t>((want[byte] >> (4 * nibble)) & 0xFu);
      const auto g = static_cast<uint8_t>((got[byte] >> (4 * nibble)) & 0xFu);
      if (w == g) continue;
      const int64_t d = e2m1_step_distance(w, g);
      count_code(d, r.quant_nonexact, r.quant_over_1step);
      if (d > 1)
        first.note(element_text("quant_out (fp4)", rank, static_cast<int64_t>(2 * byte) + nibble, p.hidden) +
                   ": expected code " + hex(w, 1) + ", got " + hex(g, 1) + ": " + step_text(d) + " (limit 1)");
    }
  }
}

void compare_sf(const Problem& p, int rank, const std::vector<uint8_t>& want, const std::vector<uint8_t>& got,
                GateReport& r, FirstFailure& first) {
  compare_e4m3_bytes(want, got, r.sf_nonexact, r.sf_over_1step, first, "", [&](size_t i) {
    const SfPosition pos = sf_position(p.sf_layout, static_cast<int64_t>(i), p.hidden);
    const bool padding = pos.token >= p.tokens || pos.block >= p.hidden / kFp4BlockElems;
    return "scale_out rank " + std::to_string(rank) + " byte " + std::to_string(i) +
           (padding ? std::string(" (padding)")
                    : " (token " + std::to_string(pos.token) + ", block " + std::to_string(pos.block) + ")");
  });
}

int64_t count_byte_differences(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t elem_bytes) {
  if (a == b) return 0;
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); i += elem_bytes)
    if (!std::equal(a.begin() + static_cast<std::ptrdiff_t>(i), a.begin() + static_cast<std::ptrdiff_t>(i + elem_bytes),
                    b.begin() + static_cast<std::ptrdiff_t>(i)))
      ++n;
  return n;
}

// Elements (bytes for quant/scale) of rank `rank` that differ from rank `base` (the first checked),
// strictly bit for bit.
int64_t cross_rank_differences(const Problem& p, const FusedOutputs& first_out, int base, const FusedOutputs& other,
                               int rank, FirstFailure& first) {
  int64_t total = 0;
  auto count = [&](const char* output, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t elem,
                   const char* unit) {
    const int64_t n = count_byte_differences(a, b, elem);
    if (n > 0)
      first.note(std::string(output) + ": rank " + std::to_string(rank) + " differs from rank " + std::to_string(base) +
                 " in " + std::to_string(n) + " " + unit);
    total += n;
  };
  auto tensor = [&](const char* output, const HostTensor& a, const HostTensor& b) {
    count(output, a.bytes, b.bytes, static_cast<size_t>(dtype_bytes(a.dtype)), "elements");
  };
  auto bytes = [&](const char* output, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    count(output, a, b, 1, "bytes");
  };
  if (has_allreduce_out(p.pattern)) tensor("allreduce_out", first_out.allreduce_out, other.allreduce_out);
  if (has_residual(p.pattern)) tensor("residual_out", first_out.residual_out, other.residual_out);
  if (has_norm_out(p.pattern)) tensor("norm_out", first_out.norm_out, other.norm_out);
  if (has_quant(p.pattern)) bytes("quant_out", first_out.quant_out, other.quant_out);
  if (has_fp4(p.pattern)) bytes("scale_out", first_out.scale_out, other.scale_out);
  return total;
}

void check_sizes(const Problem& p, const FusedOutputs& want, const FusedOutputs& got, int rank) {
  if (has_allreduce_out(p.pattern)) check_tensor_size("allreduce_out", rank, got.allreduce_out, want.allreduce_out);
  if (has_residual(p.pattern)) check_tensor_size("residual_out", rank, got.residual_out, want.residual_out);
  if (has_norm_out(p.pattern)) check_tensor_size("norm_out", rank, got.norm_out, want.norm_out);
  if (has_quant(p.pattern)) check_bytes_size("quant_out", rank, got.quant_out.size(), want.quant_out.size());
  if (has_fp4(p.pattern)) check_bytes_size("scale_out", rank, got.scale_out.size(), want.scale_out.size());
}

}  // namespace

int norm_ulp_tolerance(const Problem& p) {
  if (p.dtype != DType::fp32) return 1;
  int depth = 0;  // ceil(log2(hidden))
  while ((int64_t{1} << depth) < p.hidden) ++depth;
  return 1 + (depth + 1) / 2;
}

GateReport check_outputs(const Problem& p, const FusedOutputs& expected, const std::vector<FusedOutputs>& per_rank,
                         const ExactOutputs* exact, const std::vector<int>& rank_ids) {
  validate(p);
  if (per_rank.empty() || static_cast<int64_t>(per_rank.size()) > p.nranks)
    throw InvalidArgument("check_outputs: got outputs of " + std::to_string(per_rank.size()) +
                          " ranks, expected 1 to nranks = " + std::to_string(p.nranks));
  if (!rank_ids.empty() && rank_ids.size() != per_rank.size())
    throw InvalidArgument("check_outputs: " + std::to_string(rank_ids.size()) + " rank ids for the outputs of " +
                          std::to_string(per_rank.size()) + " ranks");
  auto rank_of = [&rank_ids](size_t i) { return rank_ids.empty() ? static_cast<int>(i) : rank_ids[i]; };
  // The expected outputs must themselves have the pattern's shapes (they come from reference_fused).
  const FusedOutputs shapes = allocate_outputs(p);
  try {
    check_sizes(p, shapes, expected, 0);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("check_outputs: the expected (reference) outputs do not match the problem: ") +
                          e.what());
  }
  for (size_t i = 0; i < per_rank.size(); ++i) check_sizes(p, expected, per_rank[i], rank_of(i));

  GateReport report;
  report.pattern = p.pattern;
  report.norm_ulp_limit = norm_ulp_tolerance(p);
  report.ranks_checked = static_cast<int>(per_rank.size());
  FirstFailure first;
  for (size_t ri = 0; ri < per_rank.size(); ++ri) {
    const int rank = rank_of(ri);
    const FusedOutputs& got = per_rank[ri];
    if (has_allreduce_out(p.pattern))
      report.allreduce_mismatches +=
          count_exact_mismatches("allreduce_out", rank, expected.allreduce_out, got.allreduce_out, first);
    if (has_residual(p.pattern))
      report.residual_mismatches +=
          count_exact_mismatches("residual_out", rank, expected.residual_out, got.residual_out, first);
    if (has_norm_out(p.pattern)) compare_norm(rank, expected.norm_out, got.norm_out, report, first);
    if (has_fp8(p.pattern)) compare_fp8(p, rank, expected.quant_out, got.quant_out, report, first);
    if (has_fp4(p.pattern)) {
      compare_fp4(p, rank, expected.quant_out, got.quant_out, report, first);
      compare_sf(p, rank, expected.scale_out, got.scale_out, report, first);
    }
  }
  for (size_t ri = 1; ri < per_rank.size(); ++ri)
    report.cross_rank_mismatches +=
        cross_rank_differences(p, per_rank[0], rank_of(0), per_rank[ri], rank_of(ri), first);

  report.pass = report.allreduce_mismatches == 0 && report.residual_mismatches == 0 && report.norm_over_limit == 0 &&
                report.quant_over_1step == 0 && report.sf_over_1step == 0 && report.cross_rank_mismatches == 0;
  report.first_failure = report.pass ? std::string() : first.text;

  if (exact) {
    const HostTensor* main_output = nullptr;
    const std::vector<double>* main_exact = nullptr;
    if (has_allreduce_out(p.pattern)) {
      main_output = &per_rank[0].allreduce_out, main_exact = &exact->sum, report.exact_output = "allreduce_out";
    } else if (has_norm_out(p.pattern)) {
      main_output = &per_rank[0].norm_out, main_exact = &exact->norm, report.exact_output = "norm_out";
    } else {
      main_output = &per_rank[0].residual_out, main_exact = &exact->residual, report.exact_output = "residual_out";
    }
    const ErrorStats s = error_vs_exact(*main_output, *main_exact);
    report.err_max_abs_vs_exact = s.max_abs;
    report.err_rel_rms_vs_exact = s.rel_rms;
    report.max_ulp_vs_exact = s.max_ulp;
  } else {
    report.err_max_abs_vs_exact = std::numeric_limits<double>::quiet_NaN();
    report.err_rel_rms_vs_exact = std::numeric_limits<double>::quiet_NaN();
  }
  return report;
}

namespace {
template <typename T>
void fold_sum(T& mine, T theirs) {
  mine += theirs;
}
template <typename T>
void fold_max(T& mine, T theirs) {
  mine = std::max(mine, theirs);
}
}  // namespace

void GateReport::merge(const GateReport& other) {
#define ARLAB_GATE_FOLD(type, name, fold, description) fold_##fold(name, other.name);
  ARLAB_GATE_TALLIES(ARLAB_GATE_FOLD)
#undef ARLAB_GATE_FOLD
  if (pass && !other.pass) first_failure = other.first_failure;
  pass = pass && other.pass;
}

std::vector<uint64_t> GateReport::to_words() const {
  std::vector<uint64_t> w{pass ? 1u : 0u};
#define ARLAB_GATE_WORD(type, name, fold, description) w.push_back(static_cast<uint64_t>(name));
  ARLAB_GATE_TALLIES(ARLAB_GATE_WORD)
#undef ARLAB_GATE_WORD
  return w;
}

GateReport GateReport::from_words(const uint64_t* words) {
  GateReport r;
  size_t i = 0;
  r.pass = words[i++] != 0;
#define ARLAB_GATE_UNWORD(type, name, fold, description) r.name = static_cast<type>(words[i++]);
  ARLAB_GATE_TALLIES(ARLAB_GATE_UNWORD)
#undef ARLAB_GATE_UNWORD
  return r;
}

std::string GateReport::summary() const {
  std::ostringstream os;
  os.precision(3);
  os << (pass ? "PASS" : "FAIL") << " (" << to_string(pattern) << ", " << ranks_checked << " ranks)";
  if (has_allreduce_out(pattern)) os << " | allreduce_out " << allreduce_mismatches << " mismatches";
  if (has_residual(pattern)) os << " | residual_out " << residual_mismatches << " mismatches";
  if (has_norm_out(pattern))
    os << " | norm_out " << norm_nonexact << " within " << norm_ulp_limit << " ulp, " << norm_over_limit
       << " over (max " << norm_max_ulp << " ulp)";
  if (has_quant(pattern)) os << " | quant " << quant_nonexact << " non-exact, " << quant_over_1step << " over 1 step";
  if (has_fp4(pattern)) os << " | sf " << sf_nonexact << " non-exact, " << sf_over_1step << " over 1 step";
  os << " | cross-rank " << cross_rank_mismatches << " mismatches";
  if (!exact_output.empty())
    os << " | vs fp64 (" << exact_output << "): max abs " << err_max_abs_vs_exact << ", rel rms "
       << err_rel_rms_vs_exact << ", max " << max_ulp_vs_exact << " ulp";
  if (!pass) os << " | first failure: " << first_failure;
  return os.str();
}

}  // namespace arlab::ref
