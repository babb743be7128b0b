#include "harness/model/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gpubench {
namespace {

using nlohmann::json;

constexpr std::size_t kPieceBytes = 1 << 20;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_number_char(char c) { return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(unsigned cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and whether it has a fraction or exponent.
bool number_grammar(std::string_view t, bool& is_float) {
  std::size_t i = 0;
  const std::size_t n = t.size();
  auto digits = [&] {
    const std::size_t from = i;
    while (i < n && is_digit(t[i])) ++i;
    return i > from;
  };
  if (i < n && t[i] == '-') ++i;
  if (i < n && t[i] == '0') ++i;
  else if (!digits()) return false;
  is_float = false;
  if (i < n && t[i] == '.') {
    ++i;
    is_float = true;
    if (!digits()) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    is_float = true;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

}  // namespace

JsonReader::JsonReader(std::string_view text) : begin_(text.data()), pos_(text.data()), end_(text.data() + text.size()) {
  if (pos_ < end_ && static_cast<unsigned char>(*pos_) == 0xEF) {
    if (text.substr(0, 3) != "\xEF\xBB\xBF") fail("incomplete byte order mark");
    pos_ += 3;
  }
}

JsonReader::JsonReader(std::FILE* file) : file_(file), buffer_(kPieceBytes) {
  if (!refill() || static_cast<unsigned char>(*pos_) != 0xEF) return;
  if (end_ - pos_ < 3 || std::string_view(pos_, 3) != "\xEF\xBB\xBF") fail("incomplete byte order mark");
  pos_ += 3;
}

void JsonReader::fail(const char* what) const { throw JsonReadError{offset(), what}; }

bool JsonReader::refill() {
  if (!file_) return false;
  consumed_ += static_cast<std::uint64_t>(end_ - begin_);
  const std::size_t got = std::fread(buffer_.data(), 1, buffer_.size(), file_);
  begin_ = pos_ = buffer_.data();
  end_ = begin_ + got;
  if (got == 0 && std::ferror(file_)) fail("read error");
  return got > 0;
}

char JsonReader::next() {
  if (!more()) fail("unexpected end of input");
  return *pos_++;
}

void JsonReader::skip_space() {
  while (more() && is_space(*pos_)) ++pos_;
}

char JsonReader::peek() {
  skip_space();
  if (pos_ == end_) return 0;
  if (*pos_ == 0) fail("unexpected NUL byte");
  return *pos_;
}

void JsonReader::expect_literal(const char* rest) {
  for (const char* c = rest; *c; ++c)
    if (next() != *c) fail("invalid literal");
}

void JsonReader::read_escape(std::string& out) {
  const char c = next();
  switch (c) {
    case '"': case '\\': case '/': out.push_back(c); return;
    case 'b': out.push_back('\b'); return;
    case 'f': out.push_back('\f'); return;
    case 'n': out.push_back('\n'); return;
    case 'r': out.push_back('\r'); return;
    case 't': out.push_back('\t'); return;
    case 'u': break;
    default: fail("invalid escape");
  }
  auto hex4 = [this] {
    unsigned cp = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit(next());
      if (d < 0) fail("invalid \\u escape");
      cp = cp * 16 + static_cast<unsigned>(d);
    }
    return cp;
  };
  unsigned cp = hex4();
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (next() != '\\' || next() != 'u') fail("lone surrogate");
    const unsigned low = hex4();
    if (low < 0xDC00 || low > 0xDFFF) fail("lone surrogate");
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    fail("lone surrogate");
  }
  append_utf8(cp, out);
}

// RFC 3629's well-formed sequences: no overlong forms, no surrogates, nothing above U+10FFFF.
void JsonReader::read_utf8(unsigned char lead, std::string& out) {
  int continuation = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // of the first continuation byte
  if (lead >= 0xC2 && lead <= 0xDF) continuation = 1;
  else if (lead == 0xE0) continuation = 2, lo = 0xA0;
  else if (lead == 0xED) continuation = 2, hi = 0x9F;
  else if (lead >= 0xE1 && lead <= 0xEF) continuation = 2;
  else if (lead == 0xF0) continuation = 3, lo = 0x90;
  else if (lead == 0xF4) continuation = 3, hi = 0x8F;
  else if (lead >= 0xF1 && lead <= 0xF3) continuation = 3;
  else fail("invalid UTF-8");
  out.push_back(static_cast<char>(lead));
  for (int i = 0; i < continuation; ++i) {
    const auto c = static_cast<unsigned char>(next());
    if (c < lo || c > hi) fail("invalid UTF-8");
    out.push_back(static_cast<char>(c));
    lo = 0x80;
    hi = 0xBF;
  }
}

// After the opening quote, through the closing one.
void JsonReader::read_string(std::string& out) {
  out.clear();
  for (;;) {
    const char* start = pos_;
    while (pos_ < end_) {
      const auto c = static_cast<unsigned char>(*pos_);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++pos_;
    }
    out.append(start, pos_);
    if (pos_ == end_) {
      if (!refill()) fail("unexpected end of input in a string");
      continue;
    }
    const auto c = static_cast<unsigned char>(*pos_++);
    if (c == '"') return;
    if (c == '\\') read_escape(out);
    else if (c < 0x20) fail("control character in a string");
    else read_utf8(c, out);
  }
}

// nlohmann's types: an integer is unsigned unless negative, and float where it does not fit.
json JsonReader::read_number() {
  const char* start = pos_;
  while (pos_ < end_ && is_number_char(*pos_)) ++pos_;
  std::string_view token(start, static_cast<std::size_t>(pos_ - start));
  if (pos_ == end_ && file_) {  // it may go on in the next piece
    number_.assign(start, pos_);
    while (more() && is_number_char(*pos_)) number_.push_back(*pos_++);
    token = number_;
  }
  bool is_float = false;
  if (!number_grammar(token, is_float)) fail("invalid number");
  const char* first = token.data();
  const char* last = first + token.size();
  if (!is_float) {
    if (token[0] == '-') {
      std::int64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) return json(v);
    } else {
      std::uint64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) return json(v);
    }
  }
  double v = 0;
  if (std::from_chars(first, last, v).ec == std::errc()) return json(v);
  // Out of range: strtod's answer decides, as it does nlohmann's (an underflow reads as 0 or a
  // subnormal number; an overflow is an error).
  const std::string copy(token);
  v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v)) fail("number out of range");
  return json(v);
}

json JsonReader::scalar() {
  const char c = peek();
  if (c == '"') {
    ++pos_;
    std::string text;
    read_string(text);
    return json(std::move(text));
  }
  if (c == '-' || is_digit(c)) return read_number();
  if (c != 't' && c != 'f' && c != 'n') fail(c ? "unexpected character" : "unexpected end of input");
  ++pos_;
  if (c == 't') return expect_literal("rue"), json(true);
  if (c == 'f') return expect_literal("alse"), json(false);
  return expect_literal("ull"), json(nullptr);
}

bool JsonReader::after_item(char close) {
  const char c = peek();
  if (c == close || c == ',') {
    ++pos_;
    return c == ',';
  }
  fail(c ? "expected ',' or a closing bracket" : "unexpected end of input");
}

json JsonReader::value(int depth) {
  json root;
  json* slot = &root;        // where the value being read goes
  std::vector<json*> open;   // the containers being filled, innermost last
  std::string key;
  auto next_member = [&](json& object) {
    if (peek() != '"') fail("expected a key");
    ++pos_;
    read_string(key);
    if (peek() != ':') fail("expected ':'");
    ++pos_;
    slot = &object[std::move(key)];
  };
  for (;;) {
    const char c = peek();
    bool closed = false;  // the value is complete
    if (c == '{' || c == '[') {
      if (depth + static_cast<int>(open.size()) > kMaxJsonDepth) fail("nesting too deep");
      ++pos_;
      *slot = c == '{' ? json::object() : json::array();
      open.push_back(slot);
      if (peek() == (c == '{' ? '}' : ']')) {
        ++pos_;
        open.pop_back();
        closed = true;
      } else if (c == '{') {
        next_member(*open.back());
      } else {
        slot = &open.back()->emplace_back();
      }
    } else {
      *slot = scalar();
      closed = true;
    }
    while (closed) {
      if (open.empty()) return root;
      json& container = *open.back();
      const bool object = container.is_object();
      if (!after_item(object ? '}' : ']')) {
        open.pop_back();
        continue;
      }
      if (object) next_member(container);
      else slot = &container.emplace_back();
      closed = false;
    }
  }
}

void JsonReader::begin_object() {
  if (peek() != '{') fail("expected an object");
  ++pos_;
  first_item_ = true;
}

bool JsonReader::next_key(std::string& key) {
  const bool first = first_item_;
  first_item_ = false;
  if (first ? peek() == '}' : !after_item('}')) {
    if (first) ++pos_;
    return false;
  }
  if (peek() != '"') fail("expected a key");
  ++pos_;
  read_string(key);
  if (peek() != ':') fail("expected ':'");
  ++pos_;
  return true;
}

void JsonReader::begin_array() {
  if (peek() != '[') fail("expected an array");
  ++pos_;
  first_item_ = true;
}

bool JsonReader::next_item() {
  const bool first = first_item_;
  first_item_ = false;
  if (first) {
    if (peek() != ']') return true;
    ++pos_;
    return false;
  }
  return after_item(']');
}

void JsonReader::end() {
  skip_space();
  if (more()) fail("content after the document");
}

}  // namespace gpubench
