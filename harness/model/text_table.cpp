#include "harness/model/text_table.h"

#include <algorithm>
#include <charconv>
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

std::vector<std::string> printable_cells(std::vector<std::string> cells) {
  for (auto& cell : cells) cell = printable(cell);
  return cells;
}

}  // namespace

namespace {

bool is_bidi_control(char32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// The length of the well-formed UTF-8 sequence at text[at] and its code point; 0 where the
// bytes there are not one (a stray continuation byte, an overlong form, a surrogate).
std::size_t utf8_sequence(const std::string& text, std::size_t at, char32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  const std::size_t length = lead > 0xf4 ? 0 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  cp = lead & (0x7f >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (byte(at + i) & 0x3f);
  }
  const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return length;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  char escape[16];
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c >= 0x20 && c != 0x7f) out += static_cast<char>(c);
      else if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\r') out += "\\r";
      else std::snprintf(escape, sizeof escape, "\\x%02x", c), out += escape;
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t length = utf8_sequence(text, i, cp);
    if (length == 0) {  // not UTF-8: a lone 0x9b is CSI to a terminal in 8-bit mode
      std::snprintf(escape, sizeof escape, "\\x%02x", c);
      out += escape;
      ++i;
    } else if (cp <= 0x9f || is_bidi_control(cp)) {  // C1 controls, and what reorders a line
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(cp));
      out += escape;
      i += length;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

std::string TextTable::to_text() const {
  const std::vector<std::string> header = printable_cells(this->header);
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : this->rows) rows.push_back(printable_cells(row));
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

std::string csv_number(double value) {
  if (!std::isfinite(value)) return "";
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
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
