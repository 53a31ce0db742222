// Seeded, platform-independent inputs for the fused operation (see make_inputs in
// reference/fused_reference.h). Random numbers come from std::mt19937_64 (its output sequence is
// fixed by the C++ standard); the uniform and normal transforms are written here because the
// standard library's distributions are implementation-defined.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "reference/fused_reference.h"

namespace arlab::ref {

const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::normal: return "normal";
    case Distribution::uniform: return "uniform";
    case Distribution::heavy_tailed: return "heavy_tailed";
  }
  return "?";
}

Distribution parse_distribution(const std::string& s) {
  if (s == "normal") return Distribution::normal;
  if (s == "uniform") return Distribution::uniform;
  if (s == "heavy_tailed" || s == "heavy-tailed") return Distribution::heavy_tailed;
  throw InvalidArgument("unknown distribution '" + s + "' (expected normal, uniform or heavy_tailed)");
}

namespace {

// splitmix64 finalizer (Steele, Lea, Flood 2014): spreads (seed, stream) into well-separated
// mt19937_64 seeds, so neighbouring seeds or streams do not give correlated sequences.
uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Stream ids: x of rank r is stream r; residual_in and gamma sit far above any rank count.
constexpr uint64_t kResidualStream = 1ull << 32;
constexpr uint64_t kGammaStream = (1ull << 32) + 1;
constexpr uint64_t kNegativeZeroStream = (1ull << 32) + 2;

// Student-t degrees of freedom and clamp of the heavy-tailed distribution (fused_reference.h).
constexpr int kStudentDof = 3;
constexpr double kHeavyTailClamp = 1000.0;

class Sampler {
 public:
  Sampler(uint64_t seed, uint64_t stream) : engine_(mix64(mix64(seed) ^ stream)) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Standard normal by Marsaglia's polar method: a point uniform in the unit disc gives two
  // independent normals; the second one is kept for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform01() - 1.0;
      v = 2.0 * uniform01() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

  double draw(Distribution d) {
    switch (d) {
      case Distribution::normal: return normal();
      case Distribution::uniform: return 2.0 * uniform01() - 1.0;
      case Distribution::heavy_tailed: {
        double chi2 = 0.0;
        for (int k = 0; k < kStudentDof; ++k) {
          const double z = normal();
          chi2 += z * z;
        }
        const double t = normal() / std::sqrt(chi2 / kStudentDof);
        return std::clamp(t, -kHeavyTailClamp, kHeavyTailClamp);
      }
    }
    return 0.0;
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// Rounds to T; a value that rounds to -0.0 is stored as +0.0 (inputs never carry -0.0 unless asked).
uint32_t input_bits(DType t, double v) {
  const uint32_t bits = double_to_bits(t, v);
  const uint32_t negative_zero = t == DType::fp32 ? 0x80000000u : 0x8000u;
  return bits == negative_zero ? 0u : bits;
}

HostTensor random_tensor(DType t, int64_t rows, int64_t cols, Sampler& sampler, Distribution d) {
  HostTensor out = HostTensor::make(t, rows, cols);
  uint8_t* p = out.bytes.data();
  const int64_t n = out.numel();
  if (t == DType::fp32) {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t bits = input_bits(t, sampler.draw(d));
      std::memcpy(p + 4 * i, &bits, 4);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const auto bits = static_cast<uint16_t>(input_bits(t, sampler.draw(d)));
      std::memcpy(p + 2 * i, &bits, 2);
    }
  }
  return out;
}

}  // namespace

FusedInputs make_inputs(const Problem& p, uint64_t seed, Distribution d) {
  validate(p);
  // Every tensor has its own stream, so they are drawn concurrently (one task each) with results
  // that do not depend on scheduling: large problems (2048 x 8192 x 16 ranks) take seconds serially.
  auto draw_tensor = [&p, seed, d](uint64_t stream) {
    Sampler sampler(seed, stream);
    return random_tensor(p.dtype, p.tokens, p.hidden, sampler, d);
  };
  std::vector<std::future<HostTensor>> pending;
  for (int r = 0; r < p.nranks; ++r)
    pending.push_back(std::async(std::launch::async, draw_tensor, static_cast<uint64_t>(r)));
  FusedInputs in;
  in.residual_in = draw_tensor(kResidualStream);
  for (auto& f : pending) in.x.push_back(f.get());
  // gamma: RMSNorm weights of trained models sit around 1; uniform [0.5, 1.5) keeps them positive.
  Sampler gamma_sampler(seed, kGammaStream);
  in.gamma = HostTensor::make(p.dtype, 1, p.hidden);
  for (int64_t i = 0; i < p.hidden; ++i) in.gamma.set_bits(i, input_bits(p.dtype, 0.5 + gamma_sampler.uniform01()));
  return in;
}

void add_negative_zeros(FusedInputs& in, uint64_t seed, double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw InvalidArgument("add_negative_zeros: fraction = " + std::to_string(fraction) + " must be in [0, 1]");
  Sampler sampler(seed, kNegativeZeroStream);
  for (HostTensor& x : in.x) {
    const uint32_t negative_zero = x.dtype == DType::fp32 ? 0x80000000u : 0x8000u;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (sampler.uniform01() < fraction) x.set_bits(i, negative_zero);
  }
}

}  // namespace arlab::ref
