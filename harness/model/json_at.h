#pragma once
// Validating reads of JSON inputs (result documents, baselines, tolerance files, worker
// messages). Every problem names the file and the place (a byte offset for syntax, a JSON
// pointer for content) and throws UsageError{kExitBadInput}, so a bad file is exit 2 with one
// clear line, never a crash or a silently wrong verdict.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/exit_codes.h"

namespace gpubench {

// Parses JSON text; a syntax error becomes "<file>: byte N: <what>".
nlohmann::json parse_json_text(const std::string& text, const std::string& file);
// Reads and parses a file; an unreadable file becomes "<file>: cannot read: <reason>".
nlohmann::json read_json_file(const std::string& path);
// The pieces of read_json_file: the file opened to read, and its whole text.
std::unique_ptr<std::FILE, int (*)(std::FILE*)> open_input_file(const std::string& path);
std::string read_text_file(const std::string& path);
// The error parse_json_text gives for `text`, where a reader of its own (json_reader.h) found
// one at `byte`; `what` is the message should nlohmann accept the text.
[[noreturn]] void throw_json_syntax_error(const std::string& text, const std::string& file, std::uint64_t byte,
                                          const std::string& what);

// A node of a parsed document together with where it is, for validating readers: every
// accessor checks the type and throws "<file>: <pointer>: <what>" when it is wrong.
class JsonAt {
 public:
  JsonAt(const nlohmann::json& node, std::string file, std::string pointer = "");

  const nlohmann::json& get() const { return *node_; }
  const std::string& file() const { return file_; }
  std::string place() const { return pointer_.empty() ? "/" : pointer_; }

  JsonAt at(const std::string& key) const;               // required member of an object
  std::optional<JsonAt> find(const std::string& key) const;  // absent or null: nullopt
  std::vector<std::pair<std::string, JsonAt>> members() const;  // requires an object
  std::vector<JsonAt> items() const;                     // requires an array
  std::size_t size() const;                              // of an array
  JsonAt item(std::size_t index) const;                  // of an array, index < size()

  std::string str() const;
  double num() const;  // any finite number
  long long integer() const;
  bool boolean() const;
  // Rejects members not in `allowed`, so that a misspelt field is an error, not ignored.
  void only_keys(std::initializer_list<const char*> allowed) const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  void expect(bool ok, const char* type) const;
  const nlohmann::json* node_;
  std::string file_, pointer_;
};

// Optional members of an object: absent or null gives the fallback; present but mistyped fails.
int optional_int(const JsonAt& object, const char* key, int fallback = 0);
std::uint64_t optional_size(const JsonAt& object, const char* key);  // an integer >= 0
double optional_number(const JsonAt& object, const char* key, double fallback = 0);
std::string optional_string(const JsonAt& object, const char* key);
std::optional<bool> optional_bool(const JsonAt& object, const char* key);
// A string or number as text (params, versions): 16.0 reads as "16".
std::string scalar_text(const JsonAt& node);

}  // namespace gpubench
