// CLI11 validators shared by the `arlab` subcommands: each refuses an option's text before it is
// converted, with a message that names the value and the valid range (CLI11 prints it as
// "--option: message"). Without them a number too large for its type reads "Could not convert",
// and a negative seed silently wraps around.
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/csv.h"

namespace arlab::cli {

// A whole number in [lo, hi].
inline CLI::Validator integer_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return "'" + cut_for_message(text) + "' is not a whole number (expected one in " + range + ")";
        if (errno == ERANGE || v < lo || v > hi) return cut_for_message(text) + " is outside " + range;
        return "";
      },
      "INT in " + range);
}

// A whole number in [lo, INT_MAX]: an `int` option with a lower bound.
inline CLI::Validator int_at_least(long long lo) { return integer_in(lo, INT_MAX); }

// Any `int` (the command explains a value it refuses; this only states the type's range).
inline CLI::Validator any_int() { return integer_in(INT_MIN, INT_MAX); }

// An unsigned 64-bit number (seeds): digits only, so "-1" is refused instead of wrapping around.
inline CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string range = "[0, 18446744073709551615]";
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + cut_for_message(text) + "' is not a whole number in " + range;
        errno = 0;
        std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return cut_for_message(text) + " is outside " + range;
        return "";
      },
      "UINT64");
}

// A finite number in [lo, hi] (lo_open: (lo, hi]); NaN and infinities are refused.
inline CLI::Validator finite_in(double lo, double hi, bool lo_open = false) {
  const std::string range = std::string(lo_open ? "(" : "[") + csv_num(lo) + ", " + csv_num(hi) + "]";
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return "'" + cut_for_message(text) + "' is not a number (expected a finite one in " + range + ")";
        if (!std::isfinite(v) || v < lo || v > hi || (lo_open && v == lo))
          return cut_for_message(text) + " is outside " + range + " (finite numbers only)";
        return "";
      },
      "NUMBER in " + range);
}

// A path that is not empty: an empty --out or --csv would otherwise silently mean "no output".
inline CLI::Validator non_empty_path() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "empty path" : ""; }, "PATH");
}

}  // namespace arlab::cli
