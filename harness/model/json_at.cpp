#include "harness/model/json_at.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>

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

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
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

nlohmann::json read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError{kExitBadInput, path + ": cannot read: is a directory, not a JSON file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  // Read straight into one string: a stringstream and its str() would hold the file twice,
  // which for a run of hundreds of MB is most of compare's peak memory before the parse.
  std::string text;
  std::error_code size_ec;
  const auto size = std::filesystem::file_size(path, size_ec);
  if (!size_ec) text.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw UsageError{kExitBadInput, path + ": cannot read: " + std::strerror(errno)};
  return parse_json_text(text, path);
}

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
  expect(node_->is_array(), "an array");
  std::vector<JsonAt> out;
  for (std::size_t i = 0; i < node_->size(); ++i)
    out.emplace_back((*node_)[i], file_, pointer_ + "/" + std::to_string(i));
  return out;
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
