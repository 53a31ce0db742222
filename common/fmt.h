// printf-style text ("%.3f us", "%d x %.0f ns"): the formatter of the model's term explanations and
// the CLI's tables. The result grows to whatever the format needs.
#pragma once

#include <cstdio>
#include <string>

namespace arlab {

template <typename... Args>
inline std::string fmt(const char* printf_format, Args... values) {
  // Measured first, then written at its full size: no fixed buffer, so no text is ever cut (and GCC's
  // -Wformat-truncation, which a fixed buffer tripped, has nothing to see).
  const int n = std::snprintf(nullptr, 0, printf_format, values...);
  if (n <= 0) return "";
  std::string text(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(text.data(), text.size(), printf_format, values...);
  text.resize(static_cast<size_t>(n));
  return text;
}

}  // namespace arlab
