// printf-style text ("%.3f us", "%d x %.0f ns"): the formatter of the model's term explanations and
// the CLI's tables. The result grows to whatever the format needs.
#pragma once

#include <cstdio>
#include <string>

namespace arlab {

template <typename... Args>
inline std::string fmt(const char* printf_format, Args... values) {
  char buf[256];  // most uses (a number and its unit) need far fewer
  const int n = std::snprintf(buf, sizeof buf, printf_format, values...);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), printf_format, values...);
  big.resize(static_cast<size_t>(n));
  return big;
}

}  // namespace arlab
