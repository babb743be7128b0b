#include "harness/model/json_at.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <filesystem>

namespace gpubench {
namespace {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

const char* json_type_name(const nlohmann::json& node) {
  if (node.is_number()) return "a number";
  if (node.is_string()) return "a string";
  if (node.is_boolean()) return "a boolean";
  if (node.is_object()) return "an object";
  if (node.is_array()) return "an array";
  return "null";
}

}  // namespace

namespace {

// Discards what it reads: a syntax check of nlohmann's own, without a DOM.
struct DiscardingSax {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(nlohmann::json::number_integer_t) { return true; }
  bool number_unsigned(nlohmann::json::number_unsigned_t) { return true; }
  bool number_float(nlohmann::json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) { throw e; }
};

// nlohmann's exceptions as "<file>: byte N: <what>" lines.
template <class Parse>
auto translated_errors(const std::string& text, const std::string& file, Parse parse) {
  try {
    return parse();
  } catch (const nlohmann::json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."; the
    // bracketed id means nothing to a user, the byte offset locates the damage.
    std::string what = e.what();
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    throw UsageError{kExitBadInput, file + ": byte " + std::to_string(e.byte) + ": " + what};
  } catch (const nlohmann::json::out_of_range& e) {
    // The lexer reports "number overflow parsing '1e999'" without a position: find the token.
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    std::string place;
    if (open != std::string::npos && close > open) {
      const std::string token = what.substr(open + 1, close - open - 1);
      const auto at = text.find(token);
      if (!token.empty() && at != std::string::npos) {
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
        place = "byte " + std::to_string(at) + " (line " + std::to_string(line) + "): ";
      }
      place += "number out of range: " + token;
    } else {
      place = "number out of range";
    }
    throw UsageError{kExitBadInput, file + ": " + place};
  } catch (const nlohmann::json::exception& e) {
    throw UsageError{kExitBadInput, file + ": " + e.what()};
  }
}

// nlohmann's lexer takes a NUL byte for the end of the text, so "{...}" followed by the zeros
// of a file a crash left half-written would read as whole. JSON text has no NUL anywhere.
void refuse_nul_bytes(const std::string& text, const std::string& file) {
  const std::size_t at = text.find('\0');
  if (at != std::string::npos)
    throw UsageError{kExitBadInput, file + ": byte " + std::to_string(at) +
                                        ": a NUL byte, which JSON text cannot hold (a damaged or zero-filled file)"};
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  refuse_nul_bytes(text, file);
  return translated_errors(text, file, [&] { return nlohmann::json::parse(text); });
}

void throw_json_syntax_error(const std::string& text, const std::string& file, std::uint64_t byte,
                             const std::string& what) {
  refuse_nul_bytes(text, file);
  translated_errors(text, file, [&] {
    DiscardingSax sax;
    return nlohmann::json::sax_parse(text, &sax);
  });
  throw UsageError{kExitBadInput, file + ": byte " + std::to_string(byte) + ": " + what};
}

std::unique_ptr<std::FILE, int (*)(std::FILE*)> open_input_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError{kExitBadInput, path + ": cannot read: is a directory, not a JSON file"};
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  return file;
}

std::string read_text_file(const std::string& path) {
  const auto file = open_input_file(path);
  std::string text;
  std::error_code size_ec;
  const auto size = std::filesystem::file_size(path, size_ec);
  if (!size_ec) text.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (const std::size_t got = std::fread(chunk, 1, sizeof chunk, file.get())) text.append(chunk, got);
  if (std::ferror(file.get())) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  return text;
}

nlohmann::json read_json_file(const std::string& path) { return parse_json_text(read_text_file(path), path); }

JsonAt::JsonAt(const nlohmann::json& node, std::string file, std::string pointer)
    : node_(&node), file_(std::move(file)), pointer_(std::move(pointer)) {}

void JsonAt::fail(const std::string& what) const {
  throw UsageError{kExitBadInput, file_ + ": " + place() + ": " + what};
}

void JsonAt::expect(bool ok, const char* type) const {
  if (ok) return;
  if (node_->is_null()) fail(std::string("null where ") + type + " is required");
  fail(std::string("expected ") + type + ", found " + json_type_name(*node_));
}

JsonAt JsonAt::at(const std::string& key) const {
  expect(node_->is_object(), "an object");
  auto it = node_->find(key);
  if (it == node_->end()) fail("missing required field \"" + key + "\"");
  // A null member is kept: its accessor names the type that was required.
  return JsonAt(*it, file_, pointer_ + "/" + escape_pointer_token(key));
}

std::optional<JsonAt> JsonAt::find(const std::string& key) const {
  expect(node_->is_object(), "an object");
  auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return std::nullopt;
  return JsonAt(*it, file_, pointer_ + "/" + escape_pointer_token(key));
}

std::vector<std::pair<std::string, JsonAt>> JsonAt::members() const {
  expect(node_->is_object(), "an object");
  std::vector<std::pair<std::string, JsonAt>> out;
  for (auto it = node_->begin(); it != node_->end(); ++it)
    out.emplace_back(it.key(), JsonAt(*it, file_, pointer_ + "/" + escape_pointer_token(it.key())));
  return out;
}

std::vector<JsonAt> JsonAt::items() const {
  std::vector<JsonAt> out;
  for (std::size_t i = 0, n = size(); i < n; ++i) out.push_back(item(i));
  return out;
}

std::size_t JsonAt::size() const {
  expect(node_->is_array(), "an array");
  return node_->size();
}

JsonAt JsonAt::item(std::size_t index) const {
  return JsonAt((*node_)[index], file_, pointer_ + "/" + std::to_string(index));
}

std::string JsonAt::str() const {
  expect(node_->is_string(), "a string");
  return node_->get<std::string>();
}

double JsonAt::num() const {
  expect(node_->is_number(), "a number");
  const double value = node_->get<double>();
  if (!std::isfinite(value)) fail("number out of range");
  return value;
}

long long JsonAt::integer() const {
  if (node_->is_number_unsigned()) {
    const auto value = node_->get<unsigned long long>();
    if (value > static_cast<unsigned long long>(1) << 62) fail("integer out of range");
    return static_cast<long long>(value);
  }
  if (node_->is_number_integer()) return node_->get<long long>();
  const double value = num();
  // Writers may emit 16.0 for 16; anything with a fraction is a mistake.
  if (std::floor(value) != value || std::fabs(value) > 9.0e15) fail("expected an integer");
  return static_cast<long long>(value);
}

bool JsonAt::boolean() const {
  expect(node_->is_boolean(), "a boolean");
  return node_->get<bool>();
}

void JsonAt::only_keys(std::initializer_list<const char*> allowed) const {
  for (const auto& [key, value] : members()) {
    bool known = false;
    for (const char* name : allowed) known = known || key == name;
    if (!known) value.fail("unknown field \"" + key + "\"");
  }
}

// Scalars written as text, for params and for context fields that may be strings or numbers.
std::string scalar_text(const JsonAt& node) {
  const auto& j = node.get();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_integer() || j.is_number_unsigned()) return j.dump();
  if (j.is_number_float()) {
    const double v = node.num();
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return std::to_string(static_cast<long long>(v));
    return j.dump();
  }
  node.fail(std::string("expected a string or number, found ") + json_type_name(j));
}

int optional_int(const JsonAt& obj, const char* key, int fallback) {
  auto node = obj.find(key);
  if (!node) return fallback;
  const long long v = node->integer();
  if (v < INT_MIN || v > INT_MAX) node->fail("integer out of range");
  return static_cast<int>(v);
}
std::uint64_t optional_size(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  if (!node) return 0;
  const long long v = node->integer();
  if (v < 0) node->fail("expected a size >= 0");
  return static_cast<std::uint64_t>(v);
}
double optional_number(const JsonAt& obj, const char* key, double fallback) {
  auto node = obj.find(key);
  return node ? node->num() : fallback;
}
std::string optional_string(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  return node ? node->str() : "";
}
std::optional<bool> optional_bool(const JsonAt& obj, const char* key) {
  auto node = obj.find(key);
  if (!node) return std::nullopt;
  return node->boolean();
}

}  // namespace gpubench
