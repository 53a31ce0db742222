// The bit-exact CPU reference of the fused operation (rounding points: reference/fused_reference.h).
// Works one token (row) at a time on fp32 scratch rows; the storage format is a template parameter
// so the inner loops are branch-free conversions the compiler can inline. Built with
// -ffp-contract=off (reference/CMakeLists.txt): every multiply and add rounds on its own.
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "reference/fused_reference.h"

namespace arlab::ref {

namespace {

// Storage formats: raw bit type, decode, and round-to-T of an fp32 value.
struct Bf16Format {
  using Bits = uint16_t;
  static constexpr Bits kNegativeZero = 0x8000u;
  static float decode(Bits b) { return bf16_bits_to_float(b); }
  static Bits encode(float f) { return float_to_bf16_bits(f); }
};
struct Fp16Format {
  using Bits = uint16_t;
  static constexpr Bits kNegativeZero = 0x8000u;
  static float decode(Bits b) { return fp16_bits_to_float(b); }
  static Bits encode(float f) { return float_to_fp16_bits(f); }
};
struct Fp32Format {
  using Bits = uint32_t;
  static constexpr Bits kNegativeZero = 0x80000000u;
  static float decode(Bits b) { return bits_as_float(b); }
  static Bits encode(float f) { return float_as_bits(f); }
};

template <class F>
float round_t(float f) {
  return F::decode(F::encode(f));
}

template <class F>
typename F::Bits load_bits(const HostTensor& t, int64_t row, int64_t i) {
  typename F::Bits b;
  std::memcpy(&b, t.bytes.data() + (row * t.cols + i) * static_cast<int64_t>(sizeof b), sizeof b);
  return b;
}

// x_r element as the kernels read it: -0.0 (the one-shot "not arrived" mark) counts as +0.0.
template <class F>
float load_input(const HostTensor& x, int64_t row, int64_t i) {
  const typename F::Bits b = load_bits<F>(x, row, i);
  return F::decode(b == F::kNegativeZero ? typename F::Bits{0} : b);
}

template <class F>
void store_row_exact(HostTensor& t, int64_t row, const float* values) {
  uint8_t* p = t.bytes.data() + row * t.cols * static_cast<int64_t>(sizeof(typename F::Bits));
  for (int64_t i = 0; i < t.cols; ++i) {
    const typename F::Bits b = F::encode(values[i]);
    std::memcpy(p + i * static_cast<int64_t>(sizeof b), &b, sizeof b);
  }
}

// acc[0..H) = the all-reduced sum s of token `row`, already rounded to T.
template <class F>
void sum_row(const Problem& p, const FusedInputs& in, int64_t row, float* acc) {
  const int64_t h = p.hidden;
  for (int64_t i = 0; i < h; ++i) acc[i] = load_input<F>(in.x[0], row, i);
  if (p.acc == Accumulation::pairwise) {
    for (int r = 1; r < p.nranks; ++r)
      for (int64_t i = 0; i < h; ++i) acc[i] = round_t<F>(acc[i] + load_input<F>(in.x[r], row, i));
  } else {
    for (int r = 1; r < p.nranks; ++r)
      for (int64_t i = 0; i < h; ++i) acc[i] += load_input<F>(in.x[r], row, i);
    for (int64_t i = 0; i < h; ++i) acc[i] = round_t<F>(acc[i]);
  }
}

// norm[0..H) = round_T((h * inv) * gamma) with inv from the T-rounded residual row h.
template <class F>
void rms_norm_row(const Problem& p, const float* h, const float* gamma, float* norm) {
  const Eigen::Index n = p.hidden;
  Eigen::Map<const Eigen::ArrayXf> hv(h, n);
  Eigen::Map<const Eigen::ArrayXf> gv(gamma, n);
  Eigen::Map<Eigen::ArrayXf> out(norm, n);
  // fp32 squares (exact for bf16/fp16), summed in fp64 and rounded once: see fused_reference.h.
  const float ss = static_cast<float>((hv * hv).cast<double>().sum());
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(p.hidden) + p.eps);
  out = (hv * inv) * gv;
  for (Eigen::Index i = 0; i < n; ++i) norm[i] = round_t<F>(norm[i]);
}

void quantize_fp8_row(const Problem& p, const float* norm, uint8_t* codes) {
  const float rcp = 1.0f / p.scale;  // once, as the kernels do
  for (int64_t i = 0; i < p.hidden; ++i) codes[i] = float_to_e4m3_bits(norm[i] * rcp);
}

// NVFP4 of one token: packed codes (hidden/2 bytes) and one e4m3 scale factor per 16-block.
void quantize_fp4_row(const Problem& p, int64_t token, const float* norm, uint8_t* codes,
                      std::vector<uint8_t>& scale_out) {
  const float global_scale = p.scale;
  const int64_t blocks = p.hidden / kFp4BlockElems;
  for (int64_t b = 0; b < blocks; ++b) {
    const float* v = norm + b * kFp4BlockElems;
    float amax = 0.0f;
    for (int k = 0; k < kFp4BlockElems; ++k) {
      const float a = std::fabs(v[k]);
      amax = a > amax ? a : amax;  // a NaN never wins, as with fmaxf
    }
    const uint8_t sf = float_to_e4m3_bits((global_scale * amax) / 6.0f);  // 6 = largest e2m1 magnitude
    const float sf_value = e4m3_bits_to_float(sf);
    const float out_scale = sf_value == 0.0f ? 0.0f : global_scale / sf_value;
    for (int k = 0; k < kFp4BlockElems; k += 2) {
      const uint8_t even = float_to_e2m1_bits(v[k] * out_scale);
      const uint8_t odd = float_to_e2m1_bits(v[k + 1] * out_scale);
      codes[(b * kFp4BlockElems + k) / 2] = static_cast<uint8_t>(even | (odd << 4));
    }
    scale_out[static_cast<size_t>(sf_offset(p.sf_layout, token, b, p.hidden))] = sf;
  }
}

template <class F>
FusedOutputs run_reference(const Problem& p, const FusedInputs& in) {
  FusedOutputs out = allocate_outputs(p);
  const int64_t h = p.hidden;
  std::vector<float> acc(static_cast<size_t>(h)), resid(static_cast<size_t>(h)), norm(static_cast<size_t>(h)),
      gamma(static_cast<size_t>(h));
  if (has_residual(p.pattern)) load_row(in.gamma, 0, gamma.data());
  for (int64_t t = 0; t < p.tokens; ++t) {
    sum_row<F>(p, in, t, acc.data());
    if (!has_residual(p.pattern)) {
      store_row_exact<F>(out.allreduce_out, t, acc.data());
      continue;
    }
    for (int64_t i = 0; i < h; ++i) resid[i] = round_t<F>(acc[i] + F::decode(load_bits<F>(in.residual_in, t, i)));
    store_row_exact<F>(out.residual_out, t, resid.data());
    rms_norm_row<F>(p, resid.data(), gamma.data(), norm.data());
    if (has_norm_out(p.pattern)) store_row_exact<F>(out.norm_out, t, norm.data());
    if (has_fp8(p.pattern)) quantize_fp8_row(p, norm.data(), out.quant_out.data() + t * h);
    if (has_fp4(p.pattern)) quantize_fp4_row(p, t, norm.data(), out.quant_out.data() + t * h / 2, out.scale_out);
  }
  return out;
}

std::string shape_text(const HostTensor& t) {
  return std::string(to_string(t.dtype)) + " [" + std::to_string(t.rows) + ", " + std::to_string(t.cols) + "] (" +
         std::to_string(t.bytes.size()) + " bytes)";
}

void check_tensor(const char* name, const HostTensor& t, DType dtype, int64_t rows, int64_t cols) {
  const bool ok = t.dtype == dtype && t.rows == rows && t.cols == cols &&
                  t.bytes.size() == static_cast<size_t>(rows * cols * dtype_bytes(dtype));
  if (!ok)
    throw InvalidArgument(std::string(name) + " is " + shape_text(t) + ", expected " + to_string(dtype) + " [" +
                          std::to_string(rows) + ", " + std::to_string(cols) + "] (" +
                          std::to_string(rows * cols * dtype_bytes(dtype)) + " bytes)");
}

}  // namespace

void check_inputs(const Problem& p, const FusedInputs& in) {
  validate(p);
  if (static_cast<int64_t>(in.x.size()) != p.nranks)
    throw InvalidArgument("inputs hold " + std::to_string(in.x.size()) +
                          " x tensors, expected one per rank (nranks = " + std::to_string(p.nranks) + ")");
  for (size_t r = 0; r < in.x.size(); ++r)
    check_tensor(("x[rank " + std::to_string(r) + "]").c_str(), in.x[r], p.dtype, p.tokens, p.hidden);
  if (has_residual(p.pattern)) {
    check_tensor("residual_in", in.residual_in, p.dtype, p.tokens, p.hidden);
    check_tensor("gamma", in.gamma, p.dtype, 1, p.hidden);
  }
}

HostTensor allreduce_sum(const Problem& p, const FusedInputs& in) {
  Problem sum_only = p;
  sum_only.pattern = Pattern::ar;
  return reference_fused(sum_only, in).allreduce_out;
}

FusedOutputs reference_fused(const Problem& p, const FusedInputs& in) {
  check_inputs(p, in);
  switch (p.dtype) {
    case DType::bf16: return run_reference<Bf16Format>(p, in);
    case DType::fp16: return run_reference<Fp16Format>(p, in);
    case DType::fp32: return run_reference<Fp32Format>(p, in);
  }
  throw InvalidArgument("reference_fused: unknown dtype");
}

}  // namespace arlab::ref
