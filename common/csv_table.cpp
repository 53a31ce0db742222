// The typed CSV reader's untyped half (common/csv_table.h): CsvError, splitting a file into
// records, binding the header to a schema's columns, checking each record's shape, and the strict
// parsers of the cell types (common/csv.h parse_csv_cell).
#include "common/csv_table.h"

#include "common/number_text.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

namespace arlab {

namespace {

std::string location(const std::string& file, int line, const std::string& column) {
  std::string s = file;
  if (line > 0) s += (s.empty() ? "line " : ":") + std::to_string(line);
  if (!column.empty()) s += ": column '" + cut_for_message(column) + "'";
  return s;
}

bool is_blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

std::string joined(const std::vector<detail::ColumnDecl>& columns) {
  std::string s;
  for (const detail::ColumnDecl& c : columns) s += (s.empty() ? "" : ",") + std::string(c.name);
  return s;
}

// The column of cell `index` of a data record: its header name, or "#K" (1-based) beyond the header.
std::string column_at(const std::vector<std::string>& header, size_t index) {
  return index < header.size() ? header[index] : "#" + std::to_string(index + 1);
}

// The bytes of `in`, read in chunks up to the end or through the chunk holding the first NUL byte
// (binary data: the parser names where it is): a device such as /dev/zero, or a binary file, is not
// read whole into memory.
std::string read_until_nul(std::istream& in) {
  constexpr size_t kChunkBytes = 1 << 16;  // 64 KiB per read: any size works; this is a few pages
  std::string data;
  std::string chunk(kChunkBytes, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    data.append(chunk, 0, got);
    if (std::memchr(chunk.data(), '\0', got) != nullptr) break;
  }
  return data;
}

}  // namespace

CsvError::CsvError(const std::string& f, int l, const std::string& c, const std::string& what)
    : InvalidArgument(location(f, l, c) + ": " + what), file(f), line(l), column(cut_for_message(c)) {}

namespace detail {

CsvText split_csv_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw CsvError(path, 0, "", "cannot open: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CsvError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
  const std::string data = read_until_nul(in);
  static constexpr char kUtf8Bom[] = "\xEF\xBB\xBF";
  size_t i = data.compare(0, 3, kUtf8Bom) == 0 ? 3 : 0;

  CsvText text;
  int line = 1;               // the line the reader is on
  CsvRecord record;           // the record being read
  record.line = 1;
  std::string cell;
  bool quoted = false;        // inside a quoted cell
  bool closed_quote = false;  // the cell was quoted and its closing quote has been read
  int quote_line = 0;         // where the open quoted cell started
  // The column of the cell being read: none while the header itself is read.
  auto fail = [&](const std::string& what) -> void {
    throw CsvError(path, line, text.header_line == 0 ? "" : column_at(text.header, record.cells.size()), what);
  };
  auto end_cell = [&] {
    record.cells.push_back(std::move(cell));
    cell.clear();
    closed_quote = false;
  };
  auto end_record = [&] {
    end_cell();
    const bool blank = record.cells.size() == 1 && is_blank(record.cells[0]);
    if (!blank) {
      if (text.header_line == 0) {
        text.header_line = record.line;
        text.header = std::move(record.cells);
      } else {
        text.records.push_back(std::move(record));
      }
    }
    record = CsvRecord{};
    record.line = line;
  };
  auto begins_cell = [&] { return cell.empty() && !closed_quote; };

  for (; i < data.size(); ++i) {
    const char c = data[i];
    if (c == '\0')
      fail("a NUL byte (binary data, byte " + std::to_string(i + 1) +
           " of the file): this is no text CSV file (a binary file, or one damaged on disk?)");
    if (quoted) {
      if (c == '"' && i + 1 < data.size() && data[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
        closed_quote = true;
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == ',') {
      end_cell();
    } else if (c == '\n' || (c == '\r' && (i + 1 == data.size() || data[i + 1] == '\n'))) {
      if (c == '\r' && i + 1 < data.size()) ++i;  // CRLF: one line end
      ++line;
      end_record();
    } else if (c == '\r') {
      fail(data.find('\n') == std::string::npos
               ? "CR-only line ends (a carriage return without a line feed ends every line): save the file with "
                 "LF or CRLF line ends"
               : "a carriage return (CR) without a line feed inside a line: CR-only line ends are not supported");
    } else if (c == '"') {
      if (!begins_cell())
        fail("a double quote inside a cell ('" + cut_for_message(cell) +
             "\"...'): a quoted cell must start and end with its quotes (RFC 4180)");
      quoted = true;
      quote_line = line;
    } else {
      if (closed_quote)
        fail("text after the closing quote of a quoted cell ('" + cut_for_message(cell) + "\" " +
             std::string(1, c) + "...'): a quoted cell must end with its quote (RFC 4180)");
      cell += c;
    }
  }
  if (quoted) {
    line = quote_line;
    fail("a quoted cell is not closed (it opens on this line and runs to the end of the file)");
  }
  if (!record.cells.empty() || !cell.empty() || closed_quote) end_record();  // a last line without its newline
  return text;
}

std::vector<int> bind_columns(const std::string& path, const CsvText& text, const std::vector<ColumnDecl>& columns,
                              const CsvReadOptions& options) {
  std::vector<int> position(columns.size(), -1);
  if (text.header_line == 0) {
    if (options.allow_empty_file) return position;
    throw CsvError(path, 1, columns.empty() ? "" : columns[0].name,
                   "empty file: no header line (expected columns " + joined(columns) + ")");
  }
  const std::vector<std::string>& header = text.header;
  for (size_t h = 0; h < header.size(); ++h)
    for (size_t earlier = 0; earlier < h; ++earlier)
      if (header[earlier] == header[h])
        throw CsvError(path, text.header_line, header[h],
                       "column appears twice in the header (columns " + std::to_string(earlier + 1) + " and " +
                           std::to_string(h + 1) + ")");
  for (size_t i = 0; i < columns.size(); ++i)
    for (size_t h = 0; h < header.size(); ++h)
      if (header[h] == columns[i].name) position[i] = static_cast<int>(h);
  size_t missing = 0;
  const ColumnDecl* first_missing = nullptr;
  for (size_t i = 0; i < columns.size(); ++i)
    if (position[i] < 0 && columns[i].default_text == nullptr) {
      ++missing;
      if (!first_missing) first_missing = &columns[i];
    }
  if (first_missing)
    throw CsvError(path, text.header_line, first_missing->name,
                   "header lacks this column" +
                       (missing > 1 ? " and " + std::to_string(missing - 1) + " other required column(s)"
                                    : std::string()) +
                       " (expected columns " + joined(columns) + ")");
  if (!options.ignore_unknown_columns)
    for (const std::string& name : header) {
      bool known = false;
      for (const ColumnDecl& c : columns) known = known || name == c.name;
      if (!known)
        throw CsvError(path, text.header_line, name,
                       "unknown column: this schema has no such column (expected columns " + joined(columns) + ")");
    }
  return position;
}

bool check_record(const std::string& path, const CsvText& text, const CsvRecord& record,
                  const CsvReadOptions& options) {
  const size_t want = text.header.size(), have = record.cells.size();
  if (have < want) {
    if (options.skip_cut_rows) return false;
    throw CsvError(path, record.line, column_at(text.header, have),
                   "row has " + std::to_string(have) + " cells, fewer than the header's " + std::to_string(want) +
                       " (a row cut short, e.g. by a killed run?)");
  }
  if (have > want)
    throw CsvError(path, record.line, column_at(text.header, want),
                   "row has " + std::to_string(have) + " cells, more than the header's " + std::to_string(want));
  if (record.cells == text.header)
    throw CsvError(path, record.line, text.header[0],
                   "this line repeats the header (two CSV files concatenated?); a data row was expected");
  return true;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Cells.

namespace {

[[noreturn]] void bad_cell(const CsvPlace& at, const std::string& what) {
  throw CsvError(at.file, at.line, at.column, what);
}

// An integer as std::to_string writes it (common/number_text.h: decimal, no leading zero).
template <class T>
T parse_integer(const std::string& text, const CsvPlace& at) {
  constexpr bool is_signed = std::numeric_limits<T>::is_signed;
  if (text.empty()) bad_cell(at, "empty cell where an integer is required");
  const std::string problem = integer_text_problem(text, is_signed);
  if (!problem.empty()) bad_cell(at, "'" + cut_for_message(text) + "' " + problem);
  T value{};
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err == std::errc::result_out_of_range || end != text.data() + text.size())
    bad_cell(at, "integer " + cut_for_message(text) + " is outside [" + std::to_string(std::numeric_limits<T>::min()) +
                     ", " + std::to_string(std::numeric_limits<T>::max()) + "]");
  return value;
}

// A number as std::from_chars reads it (general format), the whole cell (common/number_text.h); NaN
// only when allowed.
double parse_number(const std::string& text, const CsvPlace& at, bool nan_allowed) {
  if (text.empty())
    bad_cell(at, std::string("empty cell where a number is required") + (nan_allowed ? " (write nan for none)" : ""));
  const std::string quoted = "'" + cut_for_message(text) + "'";
  double value = 0;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err == std::errc{} && end == text.data() + text.size() && std::isnan(value) && nan_allowed) return value;
  const std::string problem = real_text_problem(text);
  if (!problem.empty())
    bad_cell(at, quoted + " " + problem + (nan_allowed ? " (this column allows nan where no figure exists)" : ""));
  return value;
}

}  // namespace

template <>
std::string parse_csv_cell<std::string>(const std::string& text, const CsvPlace&) {
  return text;
}
template <>
int parse_csv_cell<int>(const std::string& text, const CsvPlace& at) {
  return parse_integer<int>(text, at);
}
template <>
long long parse_csv_cell<long long>(const std::string& text, const CsvPlace& at) {
  return parse_integer<long long>(text, at);
}
template <>
unsigned long long parse_csv_cell<unsigned long long>(const std::string& text, const CsvPlace& at) {
  return parse_integer<unsigned long long>(text, at);
}
template <>
double parse_csv_cell<double>(const std::string& text, const CsvPlace& at) {
  return parse_number(text, at, false);
}
template <>
double parse_csv_cell<DoubleOrNan>(const std::string& text, const CsvPlace& at) {
  return parse_number(text, at, true);
}
template <>
std::optional<double> parse_csv_cell<std::optional<double>>(const std::string& text, const CsvPlace& at) {
  if (text.empty()) return std::nullopt;
  return parse_number(text, at, false);
}

}  // namespace arlab
