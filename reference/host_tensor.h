// A dense row-major 2-D tensor in host memory holding raw little-endian bit patterns of its dtype
// (2 bytes per bf16/fp16 element, 4 per fp32), so that GPU outputs copied to the host compare with
// the reference byte for byte. get/set convert through reference/dtypes.h (set rounds to nearest
// even); load_row/store_row are the fast whole-row paths the reference uses.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/problem.h"
#include "reference/dtypes.h"

namespace arlab::ref {

struct HostTensor {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> bytes;

  // Zero-filled tensor; rows and cols must be >= 0.
  static HostTensor make(DType dtype, int64_t rows, int64_t cols) {
    if (rows < 0 || cols < 0)
      throw InvalidArgument("HostTensor::make: shape [" + std::to_string(rows) + ", " + std::to_string(cols) +
                            "] has a negative extent");
    HostTensor t;
    t.dtype = dtype;
    t.rows = rows;
    t.cols = cols;
    t.bytes.assign(static_cast<size_t>(rows * cols) * static_cast<size_t>(dtype_bytes(dtype)), 0);
    return t;
  }

  int64_t numel() const { return rows * cols; }
  size_t size_bytes() const { return bytes.size(); }
  bool empty() const { return bytes.empty(); }
  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }

  // Raw bit pattern of element i (flat row-major index).
  uint32_t bits(int64_t i) const {
    check_index(i);
    const uint8_t* p = bytes.data() + i * dtype_bytes(dtype);
    if (dtype == DType::fp32) {
      uint32_t u;
      std::memcpy(&u, p, 4);
      return u;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return h;
  }
  void set_bits(int64_t i, uint32_t value_bits) {
    check_index(i);
    uint8_t* p = bytes.data() + i * dtype_bytes(dtype);
    if (dtype == DType::fp32) {
      std::memcpy(p, &value_bits, 4);
    } else {
      const uint16_t h = static_cast<uint16_t>(value_bits);
      std::memcpy(p, &h, 2);
    }
  }
  float get(int64_t i) const { return bits_to_float(dtype, bits(i)); }
  void set(int64_t i, float v) { set_bits(i, float_to_bits(dtype, v)); }

 private:
  void check_index(int64_t i) const {
    if (i < 0 || i >= numel())
      throw std::out_of_range("HostTensor: index " + std::to_string(i) + " outside [0, " + std::to_string(numel()) +
                              ") of a [" + std::to_string(rows) + ", " + std::to_string(cols) + "] " +
                              to_string(dtype) + " tensor");
  }
};

// Whole-row access without per-element checks (the row index is checked once).
inline void check_row(const HostTensor& t, int64_t row) {
  if (row < 0 || row >= t.rows)
    throw std::out_of_range("HostTensor: row " + std::to_string(row) + " outside [0, " + std::to_string(t.rows) + ")");
}
// out[0..cols) = float value of each element of `row`.
inline void load_row(const HostTensor& t, int64_t row, float* out) {
  check_row(t, row);
  const uint8_t* p = t.bytes.data() + row * t.cols * dtype_bytes(t.dtype);
  if (t.dtype == DType::fp32) {
    std::memcpy(out, p, static_cast<size_t>(t.cols) * 4);
    return;
  }
  for (int64_t i = 0; i < t.cols; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    out[i] = t.dtype == DType::bf16 ? bf16_bits_to_float(h) : fp16_bits_to_float(h);
  }
}
// Row `row` = values[0..cols) rounded to the tensor's dtype (nearest even).
inline void store_row(HostTensor& t, int64_t row, const float* values) {
  check_row(t, row);
  uint8_t* p = t.bytes.data() + row * t.cols * dtype_bytes(t.dtype);
  if (t.dtype == DType::fp32) {
    std::memcpy(p, values, static_cast<size_t>(t.cols) * 4);
    return;
  }
  for (int64_t i = 0; i < t.cols; ++i) {
    const uint16_t h = t.dtype == DType::bf16 ? float_to_bf16_bits(values[i]) : float_to_fp16_bits(values[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

}  // namespace arlab::ref
