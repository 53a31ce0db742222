// The fp64 "exact" reference (docs/operation.md): the fused operation on the same T-rounded inputs with no
// intermediate rounding, the yardstick for comparing accumulation modes and kernels' error.
// Row-major Eigen arrays mapped onto the output vectors.
#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "reference/fused_reference.h"

namespace arlab::ref {

namespace {
using RowArrayXXd = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// dst.row(t) += tensor row t, for every row (in fp64; -0.0 + anything is harmless here).
void accumulate(Eigen::Map<RowArrayXXd>& dst, const HostTensor& src, std::vector<float>& row) {
  for (int64_t t = 0; t < src.rows; ++t) {
    load_row(src, t, row.data());
    dst.row(t) += Eigen::Map<const Eigen::ArrayXf>(row.data(), src.cols).cast<double>().transpose();
  }
}
}  // namespace

ExactOutputs exact_fused(const Problem& p, const FusedInputs& in) {
  check_inputs(p, in);
  const auto n = static_cast<size_t>(p.tokens) * static_cast<size_t>(p.hidden);
  std::vector<float> row(static_cast<size_t>(p.hidden));
  ExactOutputs out;
  out.sum.assign(n, 0.0);
  Eigen::Map<RowArrayXXd> sum(out.sum.data(), p.tokens, p.hidden);
  for (const HostTensor& x : in.x) accumulate(sum, x, row);
  if (!has_residual(p.pattern)) return out;

  out.residual = out.sum;
  Eigen::Map<RowArrayXXd> residual(out.residual.data(), p.tokens, p.hidden);
  accumulate(residual, in.residual_in, row);

  load_row(in.gamma, 0, row.data());
  const Eigen::ArrayXd gamma = Eigen::Map<const Eigen::ArrayXf>(row.data(), p.hidden).cast<double>();
  out.norm.assign(n, 0.0);
  Eigen::Map<RowArrayXXd> norm(out.norm.data(), p.tokens, p.hidden);
  for (Eigen::Index t = 0; t < p.tokens; ++t) {
    const double inv_rms = 1.0 / std::sqrt(residual.row(t).square().mean() + static_cast<double>(p.eps));
    norm.row(t) = residual.row(t) * inv_rms * gamma.transpose();
  }
  return out;
}

}  // namespace arlab::ref
