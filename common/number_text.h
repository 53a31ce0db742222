// The one rule for the text of a number, wherever arlab reads one: a CSV cell (common/csv_table.h)
// and a command-line option (cli/cli_checks.h). Integers are decimal digits with an optional '-'
// (none where the value is unsigned) and no leading zero: "010" is refused, because C's strtol with
// base 0 (which CLI11 uses) reads it as octal 8 and a person means 10; "0x10", "+5", " 7" and "1e3"
// are refused too. A real number is what std::from_chars reads in its general format (decimal, an
// optional exponent; no hex, no '+', no spaces), finite, and either 0 or of a magnitude a double
// holds without losing precision: a value that underflows (below the smallest normal double,
// 2.2250738585072014e-308) or overflows is refused as such. Each function returns "" for a good
// text, else what is wrong with it, in words that fit after the quoted text ("'010' " + reason).
// Pure functions, header-only.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

namespace arlab {

// What is wrong with `text` as a decimal integer ("" when nothing is); `allow_negative` false for an
// unsigned value. The range is the caller's: this judges the form only.
inline std::string integer_text_problem(const std::string& text, bool allow_negative) {
  const std::string form = allow_negative ? "decimal digits with an optional '-'" : "decimal digits";
  if (text.empty()) return "is empty (expected " + form + ")";
  const size_t first_digit = allow_negative && text[0] == '-' ? 1 : 0;
  if (first_digit == text.size() || text.find_first_not_of("0123456789", first_digit) != std::string::npos)
    return "is not an integer (" + form + (text[0] == '-' && !allow_negative ? ": it cannot be negative" : "") +
           "; no '+', hex, exponent or spaces)";
  if (text[first_digit] == '0' && text.size() > first_digit + 1)
    return "is not an integer: a leading zero is refused (is it octal? strtol reads 010 as 8): write it without "
           "the zero";
  if (text == "-0") return "is not an integer as arlab writes them: write 0";
  return "";
}

// What is wrong with `text` as a finite real number ("" when nothing is); the range is the caller's.
inline std::string real_text_problem(const std::string& text) {
  if (text.empty()) return "is empty (expected a number)";
  double value = 0;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err == std::errc::invalid_argument || end != text.data() + text.size())
    return "is not a number (expected a decimal number such as 12, 0.5 or 1e-5; no hex, '+' or spaces)";
  if (err == std::errc::result_out_of_range) {
    // from_chars says only "out of range"; strtod tells overflow (+-HUGE_VAL) from underflow.
    const double nearest = std::strtod(text.c_str(), nullptr);
    if (std::isinf(nearest))
      return "is too large for a double (its largest finite value is 1.7976931348623157e+308)";
    return "is too close to 0 for a double: its magnitude is below the smallest normal double "
           "(2.2250738585072014e-308), where precision is lost (write 0 if zero is meant)";
  }
  if (std::isnan(value)) return "is not a finite number (nan)";
  if (std::isinf(value)) return "is not a finite number";
  if (value != 0 && std::fabs(value) < std::numeric_limits<double>::min())
    return "is too close to 0 for a double: its magnitude is below the smallest normal double "
           "(2.2250738585072014e-308), where precision is lost (write 0 if zero is meant)";
  return "";
}

// What is wrong with `text` as a float option's value: a real number as above that a float holds
// (finite, and 0 or at least the smallest normal float, 1.17549435e-38, in magnitude).
inline std::string float_text_problem(const std::string& text) {
  const std::string problem = real_text_problem(text);
  if (!problem.empty()) return problem;
  const double value = std::strtod(text.c_str(), nullptr);
  if (std::fabs(value) > std::numeric_limits<float>::max())
    return "is too large for a float (its largest finite value is 3.40282347e+38)";
  if (value != 0 && std::fabs(value) < std::numeric_limits<float>::min())
    return "is too close to 0 for a float: its magnitude is below the smallest normal float (1.17549435e-38), "
           "where it would lose precision or become 0 (write 0 if zero is meant)";
  return "";
}

}  // namespace arlab
