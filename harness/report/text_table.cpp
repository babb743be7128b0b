#include "harness/report/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace gpubench {
namespace {

std::string pad(const std::string& cell, std::size_t width, bool right) {
  const std::size_t fill = width > cell.size() ? width - cell.size() : 0;
  return right ? std::string(fill, ' ') + cell : cell + std::string(fill, ' ');
}

std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string markdown_cell(const std::string& cell) {
  std::string escaped;
  for (char c : printable(cell)) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::vector<std::vector<std::string>> printable_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> out = rows;
  for (auto& row : out)
    for (auto& cell : row) cell = printable(cell);
  return out;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

std::string TextTable::to_text() const {
  const auto rows = printable_rows(this->rows);
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) widths[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const bool right = c < right_align.size() && right_align[c];
      const std::string cell = c < cells.size() ? cells[c] : "";
      const bool last = c + 1 == widths.size();
      out += last && !right ? cell : pad(cell, widths[c], right);
      if (!last) out += "  ";
    }
    return out + "\n";
  };
  std::string out = line(header);
  std::size_t total = 0;
  for (auto w : widths) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string TextTable::to_markdown() const {
  std::string out = "|";
  for (const auto& h : header) out += " " + markdown_cell(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < header.size(); ++c)
    out += (c < right_align.size() && right_align[c]) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (std::size_t c = 0; c < header.size(); ++c)
      out += " " + markdown_cell(c < row.size() ? row[c] : "") + " |";
    out += "\n";
  }
  return out;
}

std::string TextTable::to_csv() const {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) out += ",";
      out += csv_field(cells[c]);
    }
    out += "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out;
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::clamp(digits - 1 - magnitude, 0, 9);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace gpubench
