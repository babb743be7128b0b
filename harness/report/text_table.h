#pragma once
// Plain-text, markdown and CSV renderings of a table of strings. Every command that prints
// tables (run results, compare, check, list, info) goes through these.
#include <string>
#include <vector>

namespace gpubench {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_align;  // per column; missing entries mean left

  std::string to_text() const;      // columns padded, a rule under the header
  std::string to_markdown() const;  // GitHub-flavoured pipe table
  std::string to_csv() const;       // RFC 4180 quoting
};

// Control characters written visibly (\n, \t, \x1b...): a benchmark name read from a file may
// carry a newline or a terminal escape sequence that would forge or hide lines of a report.
std::string printable(const std::string& text);

// Fixed-point with `digits` significant digits, e.g. 4823.1, 12.35, 0.4312.
std::string format_number(double value, int digits = 4);

}  // namespace gpubench
