// One number as printf-style text ("%.3f us"): the formatter of the model's term explanations and
// the CLI's tables.
#pragma once

#include <cstdio>
#include <string>

namespace arlab {

inline std::string fmt(const char* printf_format, double value) {
  char buf[64];  // the longest use, "%.3f us" of a double, needs far fewer
  std::snprintf(buf, sizeof buf, printf_format, value);
  return buf;
}

}  // namespace arlab
