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

// Text from a file made safe for a terminal, the one escaping point of every text rendering
// (tables, check and compare reports, messages on stderr): C0 controls and DEL as \n, \t, \r,
// \x1b..., C1 controls and the Unicode bidirectional controls (U+061C, U+200E/F, U+202A-202E,
// U+2066-2069) as \u009b, \u202e..., bytes that are not UTF-8 as \xNN. A name read from a file
// may carry a newline, a terminal escape sequence or a right-to-left override that would forge,
// hide or reorder lines of a report. Backslashes are kept: the result is for eyes, not parsing.
std::string printable(const std::string& text);

// Fixed-point with `digits` significant digits, e.g. 4823.1, 12.35, 0.4312.
std::string format_number(double value, int digits = 4);
// A figure in a CSV cell: the shortest text that reads back exactly; a non-finite one is an
// empty cell, which a reader takes as missing without making the column text.
std::string csv_number(double value);

}  // namespace gpubench
