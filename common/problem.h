// Shared vocabulary of every arlab layer: dtypes, fused-op patterns, accumulation modes,
// algorithms and the Problem struct (docs/operation.md). Header-only, depends on nothing of ours,
// so `reference/`, `model/`, `kernels/` (host side) and `harness/` can all use it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace arlab {

// Every user-facing validation failure throws this; the message names the value and the limit.
struct InvalidArgument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class DType { bf16, fp16, fp32 };
// Pattern numbering follows the peer libraries (docs/operation.md table).
enum class Pattern : int {
  ar = 0,
  ar_res_rms = 1,
  ar_res_rms_fp8 = 2,
  ar_res_rms_fp4 = 3,
  ar_res_rms_out_fp8 = 4,
  ar_res_rms_out_fp4 = 5,
};
enum class Accumulation { pairwise, fp32_acc };
enum class Algorithm { oneshot, twoshot };
enum class ScaleLayout { linear, swizzled_128x4 };

constexpr int kNumPatterns = 6;
constexpr int kVectorBytes = 16;     // one 16-byte vector per access (docs/kernels.md)
constexpr int kFp4BlockElems = 16;   // NVFP4 scale block: 16 consecutive elements (docs/operation.md)

inline int dtype_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }
// Elements per 16-byte vector: 8 for bf16/fp16, 4 for fp32.
inline int vec_elems(DType d) { return kVectorBytes / dtype_bytes(d); }

constexpr bool has_residual(Pattern p) { return p != Pattern::ar; }
constexpr bool has_allreduce_out(Pattern p) { return p == Pattern::ar; }
constexpr bool has_norm_out(Pattern p) {
  return p == Pattern::ar_res_rms || p == Pattern::ar_res_rms_out_fp8 || p == Pattern::ar_res_rms_out_fp4;
}
constexpr bool has_fp8(Pattern p) { return p == Pattern::ar_res_rms_fp8 || p == Pattern::ar_res_rms_out_fp8; }
constexpr bool has_fp4(Pattern p) { return p == Pattern::ar_res_rms_fp4 || p == Pattern::ar_res_rms_out_fp4; }
constexpr bool has_quant(Pattern p) { return has_fp8(p) || has_fp4(p); }
// NVFP4 patterns need a 16-bit dtype (docs/operation.md); every other pattern takes every dtype.
constexpr bool pattern_supports_dtype(Pattern p, DType d) { return !has_fp4(p) || d != DType::fp32; }

inline const char* to_string(DType d) {
  switch (d) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
  }
  return "?";
}
inline const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::ar: return "ar";
    case Pattern::ar_res_rms: return "ar_res_rms";
    case Pattern::ar_res_rms_fp8: return "ar_res_rms_fp8";
    case Pattern::ar_res_rms_fp4: return "ar_res_rms_fp4";
    case Pattern::ar_res_rms_out_fp8: return "ar_res_rms_out_fp8";
    case Pattern::ar_res_rms_out_fp4: return "ar_res_rms_out_fp4";
  }
  return "?";
}
inline const char* to_string(Accumulation a) { return a == Accumulation::pairwise ? "pairwise" : "fp32_acc"; }
inline const char* to_string(Algorithm a) { return a == Algorithm::oneshot ? "oneshot" : "twoshot"; }
inline const char* to_string(ScaleLayout l) { return l == ScaleLayout::linear ? "linear" : "swizzled_128x4"; }

inline DType parse_dtype(const std::string& s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp16") return DType::fp16;
  if (s == "fp32") return DType::fp32;
  throw InvalidArgument("unknown dtype '" + s + "' (expected bf16, fp16 or fp32)");
}
inline Pattern parse_pattern(const std::string& s) {
  for (int i = 0; i < kNumPatterns; ++i)
    if (s == to_string(static_cast<Pattern>(i)) || s == std::to_string(i)) return static_cast<Pattern>(i);
  throw InvalidArgument("unknown pattern '" + s + "' (expected 0..5 or ar, ar_res_rms, ar_res_rms_fp8, "
                        "ar_res_rms_fp4, ar_res_rms_out_fp8, ar_res_rms_out_fp4)");
}
inline Accumulation parse_accumulation(const std::string& s) {
  if (s == "pairwise") return Accumulation::pairwise;
  if (s == "fp32_acc" || s == "fp32-acc") return Accumulation::fp32_acc;
  throw InvalidArgument("unknown accumulation '" + s + "' (expected pairwise or fp32_acc)");
}
inline Algorithm parse_algorithm(const std::string& s) {
  if (s == "oneshot" || s == "one-shot") return Algorithm::oneshot;
  if (s == "twoshot" || s == "two-shot") return Algorithm::twoshot;
  throw InvalidArgument("unknown algorithm '" + s + "' (expected oneshot or twoshot)");
}
inline ScaleLayout parse_scale_layout(const std::string& s) {
  if (s == "linear") return ScaleLayout::linear;
  if (s == "swizzled" || s == "swizzled_128x4") return ScaleLayout::swizzled_128x4;
  throw InvalidArgument("unknown scale layout '" + s + "' (expected linear or swizzled_128x4)");
}

// The N of docs/operation.md: every kernel is instantiated for each of these (kernels/kernel_table.h).
constexpr int kSupportedRanks[] = {2, 4, 8, 16};
constexpr bool is_supported_nranks(int n) {
  for (int s : kSupportedRanks)
    if (s == n) return true;
  return false;
}

// One fused all-reduce call: what every kernel and the reference compute (docs/operation.md).
struct Problem {
  int tokens = 128;
  int hidden = 4096;
  int nranks = 2;
  DType dtype = DType::bf16;
  Pattern pattern = Pattern::ar_res_rms;
  Accumulation acc = Accumulation::pairwise;
  Algorithm algo = Algorithm::oneshot;
  ScaleLayout sf_layout = ScaleLayout::swizzled_128x4;
  float eps = 1e-5f;   // RMSNorm epsilon (Llama-3 uses 1e-5)
  float scale = 1.0f;  // FP8: the dequant scale (q = e4m3(norm / scale)); FP4: the global scale S
};

// Every field compared: a field added to Problem must be added here too, or this stops compiling.
inline bool operator==(const Problem& a, const Problem& b) {
  static_assert(sizeof(Problem) == 10 * sizeof(int), "Problem changed: compare the new field in operator==");
  return a.tokens == b.tokens && a.hidden == b.hidden && a.nranks == b.nranks && a.dtype == b.dtype &&
         a.pattern == b.pattern && a.acc == b.acc && a.algo == b.algo && a.sf_layout == b.sf_layout &&
         a.eps == b.eps && a.scale == b.scale;
}
inline bool operator!=(const Problem& a, const Problem& b) { return !(a == b); }

// Equal in everything but tokens: calls of one shape, which one kernel instantiation, one set of
// device tensors and one workspace format serve (a call may use the first rows only).
inline bool same_except_tokens(const Problem& a, const Problem& b) {
  Problem t = a;
  t.tokens = b.tokens;
  return t == b;
}

inline long long threads_per_token(const Problem& p) { return p.hidden / vec_elems(p.dtype); }

// The first rule of docs/operation.md / docs/errors.md a problem breaks: the Problem field it concerns ("nranks",
// "tokens", "hidden", "dtype", "eps" or "scale"; readers map it to their column) and a message
// naming the value and the limit. An empty field means the problem is valid.
struct ProblemViolation {
  std::string field;
  std::string message;
};

inline ProblemViolation problem_violation(const Problem& p) {
  if (!is_supported_nranks(p.nranks))
    return {"nranks", "nranks = " + std::to_string(p.nranks) + " is not supported (expected 2, 4, 8 or 16)"};
  if (p.tokens < 1) return {"tokens", "tokens = " + std::to_string(p.tokens) + " must be >= 1"};
  if (p.hidden < 1) return {"hidden", "hidden = " + std::to_string(p.hidden) + " must be >= 1"};
  const int v = vec_elems(p.dtype);
  if (p.hidden % v != 0)
    return {"hidden", "hidden = " + std::to_string(p.hidden) + " is not a multiple of the vector width " +
                          std::to_string(v) + " elements for " + to_string(p.dtype) + " (16 bytes / " +
                          std::to_string(dtype_bytes(p.dtype)) + ")"};
  if (has_fp4(p.pattern)) {
    if (!pattern_supports_dtype(p.pattern, p.dtype))
      return {"dtype", std::string("pattern ") + to_string(p.pattern) + " (FP4) needs a 16-bit dtype, got fp32"};
    if (p.hidden % kFp4BlockElems != 0)
      return {"hidden", "hidden = " + std::to_string(p.hidden) + " is not a multiple of 16, required by FP4 patterns"};
  }
  if (!std::isfinite(p.eps) || p.eps < 0.0f)
    return {"eps", "eps = " + std::to_string(p.eps) + " must be finite and >= 0"};
  if (has_quant(p.pattern) && (!std::isfinite(p.scale) || !(p.scale > 0.0f)))
    return {"scale", "scale = " + std::to_string(p.scale) + " must be finite and > 0 for quantizing patterns"};
  return {};
}

// Throws InvalidArgument naming the offending value and the limit (docs/operation.md, docs/errors.md).
inline void validate(const Problem& p) {
  const ProblemViolation v = problem_violation(p);
  if (!v.field.empty()) throw InvalidArgument(v.message);
}

}  // namespace arlab
