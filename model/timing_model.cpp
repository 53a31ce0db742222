// The analytic timing model: the dispatch to the per-algorithm models (model/oneshot_model.cpp,
// model/twoshot_model.cpp) and the per-pattern quantities they share.
#include "model/timing_model.h"

#include "model/model_terms.h"

namespace arlab::model {

// Vector operations per 16-byte vector of one token, in "one convert-and-add of a vector" units
// (sm_ns_per_vector_op calibrates their cost):
//   N        convert and accumulate each rank's vector
//   +1       residual add (patterns with a residual)
//   +3       RMSNorm: square-accumulate, scale by 1/rms, multiply by gamma
//   +1       FP8: scale and convert to e4m3
//   +4       NVFP4: block amax (shuffle), scale factor, e2m1 conversion (software below sm_100)
//   +1       round to T and pack for the stores
int vector_ops_per_vector(const Problem& p) {
  int ops = p.nranks + 1;
  if (has_residual(p.pattern)) ops += 1 + 3;
  if (has_fp8(p.pattern)) ops += 1;
  if (has_fp4(p.pattern)) ops += 4;
  return ops;
}

double output_bytes_per_token(const Problem& p) {
  const double elem = dtype_bytes(p.dtype);
  const double h = p.hidden;
  double bytes = 0;
  if (has_allreduce_out(p.pattern)) bytes += h * elem;
  if (has_residual(p.pattern)) bytes += h * elem;  // residual_out
  if (has_norm_out(p.pattern)) bytes += h * elem;
  if (has_fp8(p.pattern)) bytes += h;              // one e4m3 code per element
  if (has_fp4(p.pattern)) bytes += h / 2 + h / kFp4BlockElems;  // two codes per byte + one e4m3 SF per 16
  return bytes;
}

namespace {

// One prediction: the algorithm's model over the derived inputs; negative when it cannot launch.
double run_model(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                 const KernelResources& res, detail::TermSheet& sheet) {
  detail::ModelInputs in{p, c, s, cal};
  if (!detail::derive_inputs(in, res)) return -1.0;
  return c.algo == Algorithm::oneshot ? detail::oneshot_model(in, sheet) : detail::twoshot_model(in, sheet);
}

}  // namespace

double predict_total_us(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                        const KernelResources& res) {
  detail::TermSheet sheet(false);
  const double ns = run_model(p, c, s, cal, res, sheet);
  return ns < 0 ? -1.0 : ns / 1e3;
}

Prediction predict(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                   const KernelResources& res) {
  if (implementation(c.impl).model == ModelDesign::not_modelled)
    throw InvalidArgument(std::string("the model does not predict the ") + to_string(c.impl) +
                          " implementation (its table row has no model design)");
  check_legal(p, c, s, res);
  detail::TermSheet sheet(true);
  const double ns = run_model(p, c, s, cal, res, sheet);
  if (ns < 0) throw InvalidArgument("the kernel cannot launch: no block of this configuration fits an SM");
  Prediction out;
  out.total_us = ns / 1e3;
  out.terms = sheet.take_terms();
  out.link = s.link == LinkKind::nvlink
                 ? "nvlink"
                 : "local (emulated node: peers share this GPU, peer traffic is its L2/HBM traffic, not NVLink)";
  return out;
}

}  // namespace arlab::model
