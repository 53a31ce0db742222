// Tidy-CSV writing shared by every arlab writer, and the schema mechanism. Schemas themselves are
// defined once each, as X-macro column lists (see common/measurement_schema.h) that ARLAB_CSV_SCHEMA
// turns into a header, a typed row, its cells and the column list the typed reader
// (common/csv_table.h read_rows) reads it by; plots/ read columns by name.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/output_target.h"

namespace arlab {

// Quote a cell only when it needs it (RFC 4180).
inline std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

inline std::string csv_join(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';
    line += csv_cell(cells[i]);
  }
  return line;
}

// Splits one CSV line into cells (RFC 4180: double quotes around a cell, "" inside one).
inline std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// The longest cell text an error message quotes: longer cells are cut (a 1 MB cell must not flood
// the terminal), with their length said.
constexpr size_t kMaxQuotedCellChars = 80;

// `text` cut to kMaxQuotedCellChars characters, with "... (N characters)" when cut.
inline std::string cut_for_message(const std::string& text) {
  if (text.size() <= kMaxQuotedCellChars) return text;
  return text.substr(0, kMaxQuotedCellChars) + "... (" + std::to_string(text.size()) + " characters)";
}

// How a header `found` differs from `expected`: the first differing column (1-based) with both
// names, or the column counts when one is a prefix of the other; empty when they are equal.
inline std::string header_difference(const std::vector<std::string>& found, const std::vector<std::string>& expected) {
  for (size_t i = 0; i < found.size() && i < expected.size(); ++i)
    if (found[i] != expected[i])
      return "column " + std::to_string(i + 1) + " is '" + cut_for_message(found[i]) + "', expected '" + expected[i] +
             "' (" + std::to_string(found.size()) + " columns, expected " + std::to_string(expected.size()) + ")";
  if (found.size() != expected.size())
    return std::to_string(found.size()) + " columns, expected " + std::to_string(expected.size()) +
           " (the first " + std::to_string(std::min(found.size(), expected.size())) + " agree)";
  return "";
}

// What an existing text file looks like to a writer that appends to it or replaces it: its first
// non-blank line without a UTF-8 byte-order mark or CR (the header: the readers skip blank lines),
// whether it holds anything but blank lines, whether its lines end in CRLF, and whether its last
// byte is a newline. A path that leads (through links) to something other than a regular file -- a
// device such as /dev/null, a FIFO -- is not read (reading /dev/zero would never end, a FIFO would
// wait for a writer): it holds no rows to keep, and is written through (common/output_target.h).
struct CsvFileStart {
  bool exists = false;
  bool regular = true;             // false: a device, FIFO or socket (blank, not read)
  bool blank = true;               // empty, or only whitespace and line breaks
  std::string first_line;          // the first non-blank line, BOM and trailing CR removed
  bool crlf = false;               // the first line ends in CR LF
  bool ends_with_newline = true;   // (true for an empty file: nothing to terminate)
};

inline CsvFileStart inspect_csv_file(const std::string& path) {
  CsvFileStart s;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    s.exists = true;
    s.regular = false;
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return s;
  s.exists = true;
  static constexpr char kUtf8Bom[] = "\xEF\xBB\xBF";
  for (std::string line; s.blank && std::getline(in, line);) {
    const bool terminated = !in.eof();
    if (line.compare(0, 3, kUtf8Bom) == 0) line.erase(0, 3);
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // a blank line (readers skip them)
    s.blank = false;
    s.first_line = line;
    s.crlf = cr && terminated;
  }
  in.clear();
  in.seekg(0, std::ios::end);
  char last = '\n';
  if (in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    in.get(last);
  }
  s.ends_with_newline = last == '\n';
  return s;
}

// Throws std::runtime_error unless rows with `header` can be appended to `path`: it is absent,
// empty or blank, or it starts with the same header (after a UTF-8 byte-order mark, with LF or CRLF
// line ends, after blank lines); the message shows where the headers differ. Returns what the file
// looks like, for the writer.
inline CsvFileStart check_appendable(const std::string& path, const std::vector<std::string>& header) {
  if (path.empty()) throw std::runtime_error("CSV output: empty path");
  const CsvFileStart start = inspect_csv_file(path);
  if (start.exists && !start.blank) {
    const std::string diff = header_difference(csv_split(start.first_line), header);
    if (!diff.empty())
      throw std::runtime_error("CSV file " + path + " has a different header (" + diff +
                               "): it holds rows of another schema; refusing to append.\n  found:    " +
                               cut_for_message(start.first_line) +
                               "\n  expected: " + cut_for_message(csv_join(header)));
  }
  return start;
}

// Appends rows to a CSV file (check_appendable first): rows of two schemas never mix, nothing is
// overwritten. A new, empty or blank file gets the header. A last line without its newline is
// terminated first (the first new row would otherwise continue it); rows take the file's line
// ends (CRLF when its header has them). Nothing is written before the first row: a command that
// fails before it leaves the file as it was (a new file is not even made). Each row is written with
// one write(2); when a write fails (a full disk, a file size limit), the file is restored to what it
// was before this appender's first row -- truncated to its old size, a blank file given back its
// bytes, a file it made removed -- and the error says so. A path that leads to a device or FIFO is
// written through (nothing to restore there); a symbolic link is followed (common/output_target.h).
class CsvAppender {
 public:
  CsvAppender(const std::string& path, const std::vector<std::string>& header) : path_(path) {
    const CsvFileStart start = check_appendable(path, header);
    target_ = resolve_output_target(path);
    eol_ = start.crlf ? "\r\n" : "\n";
    // A blank file holds no row: it is started afresh with the header.
    blank_ = start.exists && start.blank && target_.regular;
    if (!start.exists || start.blank) pending_ = csv_join(header) + eol_;
    else if (!start.ends_with_newline) pending_ = eol_;
    ncols_ = header.size();
  }
  CsvAppender(const CsvAppender&) = delete;
  CsvAppender& operator=(const CsvAppender&) = delete;
  ~CsvAppender() {
    if (fd_ >= 0) ::close(fd_);
  }

  void append(const std::vector<std::string>& cells) {
    if (cells.size() != ncols_)
      throw std::logic_error("CSV row for " + path_ + " has " + std::to_string(cells.size()) + " cells, header has " +
                             std::to_string(ncols_));
    if (fd_ < 0) open_target();
    const std::string text = pending_ + csv_join(cells) + eol_;
    const int err = write_all(text);
    if (err != 0) {
      const std::string restored = restore();
      throw std::runtime_error("write to CSV file " + path_ + " failed: " + std::strerror(err) + "; " + restored);
    }
    pending_.clear();
  }

 private:
  void open_target() {
    const std::string& p = target_.path;
    if (target_.special()) {
      fd_ = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
    } else if (target_.exists) {
      if (blank_) {  // kept, to be given back if a write fails
        std::ifstream in(p, std::ios::binary);
        blank_bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      fd_ = ::open(p.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      struct stat st {};
      if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_before_ = st.st_size;
      if (fd_ >= 0 && blank_ && ::ftruncate(fd_, 0) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        throw std::runtime_error("cannot start CSV file " + path_ + " afresh: " + std::strerror(err));
      }
    } else {
      fd_ = ::open(p.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      created_ = fd_ >= 0;
    }
    if (fd_ < 0) throw std::runtime_error("cannot open CSV file " + path_ + " for appending: " + std::strerror(errno));
  }

  // 0, or the errno of the write that failed.
  int write_all(const std::string& text) {
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      done += static_cast<size_t>(n);
    }
    return 0;
  }

  // Gives the file back what it held before this appender's first row; says what was done.
  std::string restore() {
    const std::string& p = target_.path;
    if (target_.special()) return "it is no regular file, so nothing could be taken back";
    if (created_) {
      ::close(fd_);
      fd_ = -1;
      ::unlink(p.c_str());
      return "the file it had made was removed";
    }
    if (::ftruncate(fd_, blank_ ? 0 : size_before_) != 0)
      return std::string("and restoring its old size failed too: ") + std::strerror(errno);
    if (blank_ && !blank_bytes_.empty() && ::pwrite(fd_, blank_bytes_.data(), blank_bytes_.size(), 0) < 0)
      return std::string("and giving back its blank lines failed: ") + std::strerror(errno);
    return "the file was restored to what it held before (" + std::to_string(size_before_) + " bytes)";
  }

  std::string path_;
  OutputTarget target_;
  int fd_ = -1;
  bool created_ = false;  // this appender made the file
  bool blank_ = false;    // the file existed and held only blank lines (it is started afresh)
  std::string blank_bytes_;
  off_t size_before_ = 0;
  std::string pending_;   // header and/or line end written before the first row
  std::string eol_ = "\n";
  size_t ncols_ = 0;
};

// Shortest text that reads back as exactly the same double (std::to_chars' round-trip form).
inline std::string csv_num(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// The text of one typed cell, as every X-macro schema writes it.
inline std::string csv_cell_of(const std::string& v) { return v; }
inline std::string csv_cell_of(int v) { return std::to_string(v); }
inline std::string csv_cell_of(long long v) { return std::to_string(v); }
inline std::string csv_cell_of(unsigned long long v) { return std::to_string(v); }
inline std::string csv_cell_of(double v) { return csv_num(v); }
inline std::string csv_cell_of(const std::optional<double>& v) { return v ? csv_num(*v) : std::string(); }

}  // namespace arlab

// ---------------------------------------------------------------------------------------------
// The schema mechanism.
//
// A column list COLUMNS(X) holds one entry per column, in the order they are written:
//   X(type, name, description)           a required column: a file without it is refused;
//   X(type, name, description, DEFAULT)  an optional column: a file without it (written before the
//                                        column existed) reads as if every cell held the text
//                                        DEFAULT, e.g. "reference", "nan", "-1" or "".
// New columns go last and take a DEFAULT, so appending one is a one-line change and every earlier
// file still reads. `type` is the cell type: std::string, int, long long, unsigned long long,
// double (finite), DoubleOrNan (a double whose cells may also be nan, which arlab writes where a
// figure is undefined) or std::optional<double> (an empty cell is none). How each is parsed:
// common/csv_table.h.

namespace arlab {

// Cell type of a double column whose cells may be nan (the field is a plain double).
struct DoubleOrNan {};

// The C++ type of the field that holds a cell of type Cell.
template <class Cell>
struct CsvFieldOf {
  using type = Cell;
};
template <>
struct CsvFieldOf<DoubleOrNan> {
  using type = double;
};
template <class Cell>
using csv_field_t = typename CsvFieldOf<Cell>::type;

// Where a cell is, for messages: file, 1-based line and column name.
struct CsvPlace {
  const std::string& file;
  int line;
  const std::string& column;
};

// Parses one cell of type Cell strictly (common/csv_table.cpp); throws CsvError at `at`.
template <class Cell>
csv_field_t<Cell> parse_csv_cell(const std::string& text, const CsvPlace& at);
template <>
std::string parse_csv_cell<std::string>(const std::string& text, const CsvPlace& at);
template <>
int parse_csv_cell<int>(const std::string& text, const CsvPlace& at);
template <>
long long parse_csv_cell<long long>(const std::string& text, const CsvPlace& at);
template <>
unsigned long long parse_csv_cell<unsigned long long>(const std::string& text, const CsvPlace& at);
template <>
double parse_csv_cell<double>(const std::string& text, const CsvPlace& at);
template <>
double parse_csv_cell<DoubleOrNan>(const std::string& text, const CsvPlace& at);
template <>
std::optional<double> parse_csv_cell<std::optional<double>>(const std::string& text, const CsvPlace& at);

// One column of a schema as the reader sees it: its name, its default text (nullptr: required) and
// how a cell is parsed into the row's field.
template <class Row>
struct CsvColumnSpec {
  const char* name;
  const char* default_text;
  void (*parse)(Row& row, const std::string& text, const CsvPlace& at);
};

template <class Row, class Cell, csv_field_t<Cell> Row::*Field>
void parse_csv_field(Row& row, const std::string& text, const CsvPlace& at) {
  row.*Field = parse_csv_cell<Cell>(text, at);
}

}  // namespace arlab

// From an X-macro column list COLUMNS(X) (entries as described above), defines in the enclosing
// namespace:  std::vector<std::string> HEADER();        the column names, in order
//             struct ROW { field name{}; ... };         one row, fields named and typed by the list
//             std::vector<std::string> to_cells(const ROW&);   its cells (csv_cell_of), in order
//             std::vector<CsvColumnSpec<ROW>> csv_columns(const ROW*);   the columns, for read_rows
// The entry macros take the description and the optional default as `...`; ARLAB_CSV_DEFAULT_TEXT
// picks the default (the second of them) or nullptr when there is none.
#define ARLAB_CSV_SECOND_OF(first, second, ...) second
#define ARLAB_CSV_DEFAULT_TEXT(...) ARLAB_CSV_SECOND_OF(__VA_ARGS__, nullptr, )
#define ARLAB_CSV_HEADER_CELL(type, name, ...) h.emplace_back(#name);
#define ARLAB_CSV_ROW_FIELD(type, name, ...) ::arlab::csv_field_t<type> name{};
#define ARLAB_CSV_ROW_CELL(type, name, ...) c.push_back(::arlab::csv_cell_of(r.name));
#define ARLAB_CSV_COLUMN_SPEC(type, name, ...)                                  \
  ::arlab::CsvColumnSpec<SchemaRow>{#name, ARLAB_CSV_DEFAULT_TEXT(__VA_ARGS__), \
                                    &::arlab::parse_csv_field<SchemaRow, type, &SchemaRow::name>},
#define ARLAB_CSV_SCHEMA(COLUMNS, ROW, HEADER)                                  \
  inline std::vector<std::string> HEADER() {                                    \
    std::vector<std::string> h;                                                 \
    COLUMNS(ARLAB_CSV_HEADER_CELL)                                              \
    return h;                                                                   \
  }                                                                             \
  struct ROW {                                                                  \
    COLUMNS(ARLAB_CSV_ROW_FIELD)                                                \
  };                                                                            \
  inline std::vector<std::string> to_cells(const ROW& r) {                      \
    std::vector<std::string> c;                                                 \
    COLUMNS(ARLAB_CSV_ROW_CELL)                                                 \
    return c;                                                                   \
  }                                                                             \
  inline std::vector<::arlab::CsvColumnSpec<ROW>> csv_columns(const ROW*) {     \
    using SchemaRow = ROW;                                                      \
    return {COLUMNS(ARLAB_CSV_COLUMN_SPEC)};                                    \
  }
