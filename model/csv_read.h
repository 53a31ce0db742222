// Reading arlab CSVs by column name with fast-cpp-csv-parser (libfccp), with every failure turned
// into a CsvError that names the file, the line and the column, quoting a bad cell cut to 80
// characters (common/csv.h cut_for_message). Cells are read as text and parsed strictly here
// (fccp's own number parser accepts an empty cell as 0 and rounds differently from strtod, so
// numbers would neither be checked nor round-trip exactly). Blank lines are skipped (as the
// appender, common/csv.h, tolerates them); a line that repeats the header (two files concatenated)
// is refused as such.
#pragma once

// fccp's error types copy file names with strncpy, which GCC 12 flags when inlined; not our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/csv.h"
#include "common/problem.h"

namespace arlab::model {

struct CsvError : InvalidArgument {
  CsvError(const std::string& file, int line, const std::string& column, const std::string& what);
  std::string file;
  int line;            // 1-based; the header is line 1
  std::string column;  // column name
};

// Strict conversions of one cell; throw CsvError(file, line, column, ...) on an empty cell,
// trailing characters, overflow or (for numbers) non-finite values, quoting the cell cut to
// kMaxQuotedCellChars characters.
double parse_double_cell(const std::string& text, const std::string& file, int line, const std::string& column);
long long parse_int_cell(const std::string& text, const std::string& file, int line, const std::string& column);

namespace detail {
// Converts an fccp exception into a CsvError; `expected` lists the wanted columns (for messages).
[[noreturn]] void rethrow_fccp(const io::error::base& e, const std::string& file, int line,
                               const std::string& expected);
// The name of the file's header column at 0-based position `index` (read on the error path only).
std::string header_column_at(const std::string& file, int index);
// Number of cells in 1-based line `line` of `file` (quote-aware; error path only).
int cells_in_line(const std::string& file, int line);
}  // namespace detail

// Columns that a reader accepts as absent (files written before the column existed); has() says
// whether a file holds one, and its cells read as empty text when it does not.
struct OptionalColumns {
  std::vector<std::string> names;
};

// Reads the columns named at construction (in that order), ignoring extra columns.
template <unsigned N>
class CsvColumns {
 public:
  using Reader = io::CSVReader<N, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                               io::throw_on_overflow, io::empty_line_comment>;

  template <class... Names>
  explicit CsvColumns(const std::string& path, Names... names) : CsvColumns(path, OptionalColumns{}, names...) {}

  template <class... Names>
  CsvColumns(const std::string& path, const OptionalColumns& optional, Names... names)
      : path_(path), names_{{std::string(names)...}} {
    static_assert(sizeof...(Names) == N, "one name per column");
    for (const auto& n : names_) expected_ += (expected_.empty() ? "" : ",") + n;
    try {
      reader_ = std::make_unique<Reader>(path);
      if (optional.names.empty()) {
        reader_->read_header(io::ignore_extra_column, names...);
        present_.fill(true);
      } else {
        reader_->read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        for (unsigned i = 0; i < N; ++i) {
          present_[i] = reader_->has_column(names_[i]);
          const bool may_miss =
              std::find(optional.names.begin(), optional.names.end(), names_[i]) != optional.names.end();
          if (!present_[i] && !may_miss)
            throw CsvError(path_, 1, names_[i], "the header has no column '" + names_[i] + "' (expected columns " +
                                                    expected_ + ")");
        }
      }
    } catch (const io::error::base& e) {
      detail::rethrow_fccp(e, path_, 1, expected_);
    }
  }

  // False for an optional column the file does not have.
  bool has(unsigned i) const { return present_[i]; }

  // Every column the file has holds its own name (an absent optional column reads as empty text).
  bool repeats_header() const {
    for (unsigned i = 0; i < N; ++i)
      if (present_[i] && cells_[i] != names_[i]) return false;
    return true;
  }

  // Reads the next data row (blank lines skipped); false at the end of the file. Throws CsvError
  // for a row that repeats the header.
  bool next() {
    try {
      if (!read(std::make_index_sequence<N>{})) return false;
      if (repeats_header())
        throw CsvError(path_, line(), names_[0],
                       "this line repeats the header (two CSV files concatenated?); a data row was expected");
      return true;
    } catch (const io::error::too_few_columns&) {
      const int line = static_cast<int>(reader_->get_file_line());
      const int have = detail::cells_in_line(path_, line);
      throw CsvError(path_, line, detail::header_column_at(path_, have),
                     "row has " + std::to_string(have) + " cells, fewer than the header (expected columns " +
                         expected_ + ")");
    } catch (const io::error::base& e) {
      detail::rethrow_fccp(e, path_, static_cast<int>(reader_->get_file_line()), expected_);
    }
  }

  int line() const { return static_cast<int>(reader_->get_file_line()); }
  const std::string& file() const { return path_; }
  const std::string& name(unsigned i) const { return names_[i]; }
  const std::string& text(unsigned i) const { return cells_[i]; }
  double number(unsigned i) const { return parse_double_cell(cells_[i], path_, line(), names_[i]); }
  int integer(unsigned i) const {
    const long long v = parse_int_cell(cells_[i], path_, line(), names_[i]);
    if (v < -2147483647LL || v > 2147483647LL)
      throw CsvError(path_, line(), names_[i],
                     "integer " + cut_for_message(cells_[i]) + " is outside [-2147483647, 2147483647]");
    return static_cast<int>(v);
  }
  [[noreturn]] void fail(unsigned i, const std::string& what) const { throw CsvError(path_, line(), names_[i], what); }

 private:
  template <std::size_t... I>
  bool read(std::index_sequence<I...>) {
    return reader_->read_row(cells_[I]...);
  }

  std::string path_;
  std::array<std::string, N> names_;
  std::array<std::string, N> cells_;
  std::array<bool, N> present_{};
  std::string expected_;
  std::unique_ptr<Reader> reader_;
};

}  // namespace arlab::model
