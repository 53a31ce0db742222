// run_sweep and its validation (experiments/numerics_sweep.h).
#include "experiments/numerics_sweep.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "reference/error_metrics.h"

namespace arlab::numerics {

Problem sweep_problem(const SweepConfig& c, int nranks, DType dtype, Accumulation acc) {
  Problem p;
  p.tokens = c.tokens;
  p.hidden = c.hidden;
  p.nranks = nranks;
  p.dtype = dtype;
  p.acc = acc;
  p.pattern = Pattern::ar_res_rms;
  p.eps = c.eps;
  return p;
}

namespace {
template <class T, class Name>
void require_unique_nonempty(const std::vector<T>& v, const char* what, Name name) {
  if (v.empty()) throw InvalidArgument(std::string("numerics: the list of ") + what + " is empty");
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i + 1; j < v.size(); ++j)
      if (v[i] == v[j])
        throw InvalidArgument(std::string("numerics: the list of ") + what + " has " + name(v[i]) + " twice");
}
}  // namespace

double sweep_point_bytes(const SweepConfig& c) {
  constexpr double kFloatBytes = 4, kFixedBytesPerElement = 64;  // see numerics_sweep.h
  double per_element = 0;
  for (int n : c.ranks)
    for (DType d : c.dtypes)
      per_element = std::max(per_element, n * (dtype_bytes(d) + kFloatBytes) + kFixedBytesPerElement);
  return static_cast<double>(c.tokens) * static_cast<double>(c.hidden) * per_element;
}

void validate(const SweepConfig& c) {
  require_unique_nonempty(c.ranks, "ranks", [](int n) { return std::to_string(n); });
  require_unique_nonempty(c.dtypes, "dtypes", [](DType d) { return std::string(to_string(d)); });
  require_unique_nonempty(c.accs, "accumulation modes", [](Accumulation a) { return std::string(to_string(a)); });
  for (int n : c.ranks)
    for (DType d : c.dtypes)
      for (Accumulation a : c.accs) arlab::validate(sweep_problem(c, n, d, a));
  const double bytes = sweep_point_bytes(c);
  if (bytes > kMaxSweepPointBytes) {
    char text[160];
    std::snprintf(text, sizeof text, "%.1f GiB of host memory, above the %.0f GiB one point may hold",
                  bytes / (1ull << 30), kMaxSweepPointBytes / (1ull << 30));
    throw InvalidArgument("numerics: tokens = " + std::to_string(c.tokens) + " x hidden = " + std::to_string(c.hidden) +
                          " would need about " + text + "; use fewer --tokens or a smaller --hidden");
  }
}

std::string shortest_float_text(float v) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {  // 9 significant digits always round-trip a float
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

std::vector<NumericsRow> run_sweep(const SweepConfig& c) {
  validate(c);
  std::vector<NumericsRow> rows;
  const double eps_as_written = std::strtod(shortest_float_text(c.eps).c_str(), nullptr);
  for (int n : c.ranks)
    for (DType d : c.dtypes) {
      // The inputs and the fp64 reference do not depend on the accumulation mode: compute them once.
      const Problem base = sweep_problem(c, n, d, Accumulation::pairwise);
      const ref::FusedInputs in = ref::make_inputs(base, c.seed, c.distribution);
      const ref::ExactOutputs exact = ref::exact_fused(base, in);
      for (Accumulation a : c.accs) {
        const Problem p = sweep_problem(c, n, d, a);
        const ref::FusedOutputs out = ref::reference_fused(p, in);
        const ref::HostTensor sum = ref::allreduce_sum(p, in);
        const ref::HostTensor* got[3] = {&sum, &out.residual_out, &out.norm_out};
        const std::vector<double>* want[3] = {&exact.sum, &exact.residual, &exact.norm};
        for (size_t k = 0; k < 3; ++k) {
          const ref::ErrorStats s = ref::error_vs_exact(*got[k], *want[k]);
          NumericsRow r;
          r.seed = static_cast<unsigned long long>(c.seed);
          r.distribution = ref::to_string(c.distribution);
          r.tokens = c.tokens;
          r.hidden = c.hidden;
          r.eps = eps_as_written;
          r.nranks = n;
          r.dtype = to_string(d);
          r.acc = to_string(a);
          r.output = kSweepOutputs[k];
          r.elements = static_cast<long long>(s.elements);
          r.err_max_abs = s.max_abs;
          r.err_rel_rms = s.rel_rms;
          r.err_max_ulp = static_cast<long long>(s.max_ulp);
          r.err_mean_ulp = s.mean_ulp;
          r.frac_correctly_rounded = s.frac_correctly_rounded;
          rows.push_back(r);
        }
      }
    }
  return rows;
}

}  // namespace arlab::numerics
