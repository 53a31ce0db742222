// The one typed CSV reader: the rows of any ARLAB_CSV_SCHEMA schema (common/csv.h), read by column
// name (column order free), every cell parsed strictly by its declared type, every failure one
// CsvError naming file, line, column, the cell (cut to 80 characters) and what was expected.
//
// The file: a UTF-8 byte-order mark, CRLF line ends and blank lines (empty or only spaces and tabs)
// are tolerated, as the appender (common/csv.h CsvAppender) tolerates them; CR-only line ends are
// refused as such, and so is a NUL byte (binary data; the file is read only up to the first one, so
// /dev/zero is refused at once). Cells follow RFC 4180 (double quotes around a cell, "" inside one; a quoted cell
// may hold commas and line breaks); cells are not trimmed. A line that repeats the header (two files
// concatenated) is refused.
//
// The header: every required column must be there, each column name at most once. An optional
// column (X(..., DEFAULT), common/csv.h) a file lacks reads as DEFAULT in every row. A column the
// schema does not know is refused, unless the caller asks to ignore such columns
// (CsvReadOptions::ignore_unknown_columns); no committed file needs that.
//
// The cells (the text arlab's writers produce, common/csv.h csv_cell_of):
//   int, long long, unsigned long long   decimal digits with an optional '-' (none for unsigned),
//                                        no leading zero ("010" is refused, never read as 8 or 10),
//                                        no '+', no spaces, no exponent, within the type's range;
//   double                               a finite number as std::from_chars reads it (no leading
//                                        '+', no spaces, no hex, nothing after it); "nan" and "inf"
//                                        are refused, and so is a value a double cannot hold (over
//                                        1.8e308, or nonzero below 2.2e-308: subnormal);
// (the rules of common/number_text.h, which the command line follows too)
//   DoubleOrNan                          the same, or nan (any case, with or without '-': what
//                                        std::to_chars and Python write for an undefined figure);
//   std::optional<double>                empty (none), or a finite number as for double;
//   std::string                          any text.
// An empty numeric cell is refused except in an std::optional<double> column.
#pragma once

#include <string>
#include <vector>

#include "common/csv.h"
#include "common/problem.h"

namespace arlab {

// Every failure to read a CSV file. The message is "FILE:LINE: column 'NAME': WHAT" (LINE 0, the
// file as a whole, and an empty column are left out).
struct CsvError : InvalidArgument {
  CsvError(const std::string& file, int line, const std::string& column, const std::string& what);
  std::string file;
  int line;            // 1-based; 0: the file as a whole (it cannot be opened)
  std::string column;  // column name; "#K" for a cell beyond the header; empty: the whole line
};

// One bad cell found by a check after reading (an unknown label, two cells that disagree): the
// column and what is wrong, without the file and line, which the code that read the row adds
// (at_row below turns it into a CsvError).
struct CsvCellError : InvalidArgument {
  CsvCellError(const std::string& column_name, const std::string& what)
      : InvalidArgument(what), column(column_name) {}
  std::string column;
};

// Runs `check` (a function of one row read from `file` at `line`), turning a CsvCellError it throws
// into a CsvError at that file, line and column.
template <class F>
auto at_row(const std::string& file, int line, F check) -> decltype(check()) {
  try {
    return check();
  } catch (const CsvCellError& e) {
    throw CsvError(file, line, e.column, e.what());
  }
}

struct CsvReadOptions {
  // Columns the schema does not know are skipped instead of refused.
  bool ignore_unknown_columns = false;
  // A row with fewer cells than the header (a row cut short by a killed run: CsvAppender then
  // terminates it and appends after it) is skipped and listed in CsvRows::cut_lines instead of
  // refused. Rows with too many cells are refused either way.
  bool skip_cut_rows = false;
  // An empty or blank file reads as no rows (header_line 0) instead of being refused.
  bool allow_empty_file = false;
};

// The rows of one file.
template <class Row>
struct CsvRows {
  std::string file;
  std::vector<Row> rows;
  std::vector<int> lines;             // lines[i]: 1-based line of rows[i]
  int header_line = 0;                // 0: the file is empty or blank (allow_empty_file only)
  std::vector<std::string> defaulted; // optional columns the file lacks (their cells read as the default)
  std::vector<int> cut_lines;         // rows skipped as cut short (skip_cut_rows only)
  bool has_column(const std::string& name) const {
    if (header_line == 0) return false;
    for (const std::string& d : defaulted)
      if (d == name) return false;
    return true;
  }
};

namespace detail {

// One record of a CSV file: its 1-based line and its cells, unquoted.
struct CsvRecord {
  int line = 0;
  std::vector<std::string> cells;
};

// A CSV file split into its header and records (blank lines dropped). header_line 0: empty or blank.
struct CsvText {
  int header_line = 0;
  std::vector<std::string> header;
  std::vector<CsvRecord> records;
};

// Reads and splits `path` (BOM, CRLF and blank lines handled as the file comment says); throws
// CsvError for a file that cannot be opened, CR-only line ends and a quoted cell left open.
CsvText split_csv_file(const std::string& path);

// A schema column's name and default (nullptr: required).
struct ColumnDecl {
  const char* name;
  const char* default_text;
};

// Where each schema column is in `text`'s header (-1: absent, its default applies). Throws CsvError
// at the header line for a duplicated column, a missing required column or (unless ignored) an
// unknown one, and for an empty file unless allowed.
std::vector<int> bind_columns(const std::string& path, const CsvText& text, const std::vector<ColumnDecl>& columns,
                              const CsvReadOptions& options);

// Throws CsvError unless `record` has exactly the header's cells and is not a copy of the header;
// returns false for a cut row to be skipped (skip_cut_rows).
bool check_record(const std::string& path, const CsvText& text, const CsvRecord& record,
                  const CsvReadOptions& options);

}  // namespace detail

// The rows of schema Row (a struct made by ARLAB_CSV_SCHEMA) in the CSV file `path`.
template <class Row>
CsvRows<Row> read_rows(const std::string& path, const CsvReadOptions& options = {}) {
  const std::vector<CsvColumnSpec<Row>> columns = csv_columns(static_cast<const Row*>(nullptr));
  std::vector<detail::ColumnDecl> decls;
  decls.reserve(columns.size());
  for (const CsvColumnSpec<Row>& c : columns) decls.push_back({c.name, c.default_text});
  const detail::CsvText text = detail::split_csv_file(path);
  const std::vector<int> position = detail::bind_columns(path, text, decls, options);

  CsvRows<Row> out;
  out.file = path;
  out.header_line = text.header_line;
  if (text.header_line == 0) return out;  // an empty or blank file (allow_empty_file): no columns, no rows
  std::vector<std::string> column_names;
  column_names.reserve(columns.size());
  for (const CsvColumnSpec<Row>& c : columns) column_names.emplace_back(c.name);
  for (size_t i = 0; i < columns.size(); ++i)
    if (position[i] < 0) out.defaulted.push_back(column_names[i]);

  // A file without an optional column reads its default; parsed once, here, as every cell is
  // (a default that does not parse is the schema's own error, reported at the header line).
  Row defaults{};
  for (size_t i = 0; i < columns.size(); ++i)
    if (position[i] < 0)
      columns[i].parse(defaults, columns[i].default_text, CsvPlace{path, text.header_line, column_names[i]});

  out.rows.reserve(text.records.size());
  out.lines.reserve(text.records.size());
  for (const detail::CsvRecord& record : text.records) {
    if (!detail::check_record(path, text, record, options)) {
      out.cut_lines.push_back(record.line);
      continue;
    }
    Row row = defaults;
    for (size_t i = 0; i < columns.size(); ++i)
      if (position[i] >= 0)
        columns[i].parse(row, record.cells[static_cast<size_t>(position[i])],
                         CsvPlace{path, record.line, column_names[i]});
    out.rows.push_back(std::move(row));
    out.lines.push_back(record.line);
  }
  return out;
}

}  // namespace arlab
