#pragma once
// A strict JSON reader that reads a document in one pass, from a file in pieces or from text, and
// hands out its values one at a time: what lets a result file of hundreds of MB be read without
// its whole DOM (harness/model/run_stream.h). It accepts exactly what nlohmann::json::parse
// accepts (RFC 8259, a leading UTF-8 byte order mark, no comments) and builds the same values
// (unsigned, signed and float numbers alike; of a key given twice, the later value), checked
// against it by fuzz/fuzz_json_reader.cpp. Nesting is bounded (kMaxJsonDepth) and never recursive.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// Deeper than any document gpubench reads; a deeper one is refused rather than recursed into by
// the copies and dumps of its values.
constexpr int kMaxJsonDepth = 512;

// What JsonReader throws: where (bytes from the start) and what. The message a user sees for a
// syntax error is nlohmann's (json_syntax_failure in json_at.h); `what` stands in where
// nlohmann accepts the text (nesting deeper than kMaxJsonDepth).
struct JsonReadError {
  std::uint64_t byte;
  std::string what;
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text);  // the text outlives the reader
  explicit JsonReader(std::FILE* file);        // read from its current position, in pieces

  // The next character that is not whitespace, not consumed; 0 at the end of the input.
  char peek();
  // An object: begin_object consumes '{'; next_key reads `"key":` (false at the closing '}').
  void begin_object();
  bool next_key(std::string& key);
  // An array: begin_array consumes '['; next_item is false at the closing ']'.
  void begin_array();
  bool next_item();
  // One whole value. `depth` is how deep it sits (the root is 1).
  nlohmann::json value(int depth);
  // Only whitespace may follow the root value.
  void end();
  std::uint64_t offset() const { return consumed_ + static_cast<std::uint64_t>(pos_ - begin_); }

 private:
  [[noreturn]] void fail(const char* what) const;
  bool refill();  // false at the end of the input
  bool more() { return pos_ < end_ || refill(); }
  char next();    // consumes one character; fails at the end of the input
  void skip_space();
  void expect_literal(const char* rest);
  void read_string(std::string& out);
  void read_escape(std::string& out);
  void read_utf8(unsigned char lead, std::string& out);
  nlohmann::json read_number();
  nlohmann::json scalar();
  // After a value inside a container: ',' (true) or the container's close (false).
  bool after_item(char close);

  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  const char* begin_ = nullptr;  // start of the text in memory now
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  std::uint64_t consumed_ = 0;  // bytes before begin_
  std::string number_;          // a number that spans two pieces of the file
  bool first_item_ = false;     // right after '[' or '{'
};

}  // namespace gpubench
