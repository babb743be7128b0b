// The one-pass reader (json_reader.h, run_stream.h): it accepts what nlohmann accepts and builds
// the same values, reads files in pieces, refuses a nesting bomb without recursing into it, and
// a result document read through it gives the DOM path's result and the DOM path's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "harness/model/json_reader.h"
#include "harness/model/result_file.h"
#include "harness/model/run_stream.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32/array_bytes:1073741824";

nlohmann::json read_text(const std::string& text) {
  JsonReader reader(text);
  nlohmann::json value = reader.value(1);
  reader.end();
  return value;
}

bool reader_accepts(const std::string& text) {
  try {
    read_text(text);
    return true;
  } catch (const JsonReadError&) {
    return false;
  }
}

std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, kExitBadInput);
    return e.message;
  }
  return "";
}

// The error of the one-pass reader and of the DOM path, which must be one.
void expect_same_error(const std::string& text, const std::string& contains) {
  const std::string streamed = error_of([&] { parse_result_text(text, "f.json"); });
  const std::string dom = error_of([&] { parse_result_document(parse_json_text(text, "f.json"), "f.json"); });
  EXPECT_EQ(streamed, dom) << text.substr(0, 200);
  EXPECT_NE(streamed.find(contains), std::string::npos) << streamed;
}

std::string two_benchmark_run() {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(1000, 10, 9));
  b.bench("memory/stream/op:copy", "bandwidth_gbps", samples(900, 5, 7));
  return b.doc().dump(2);
}

TEST(JsonReader, BuildsTheValuesNlohmannBuilds) {
  for (const char* text :
       {"0", "-0", "-0.0", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
        "-9223372036854775809", "1e-400", "1.5E+3", "\"a\\u00e9\\ud83d\\ude00\\n\\/\"", "\"\xc3\xa9\xf0\x9f\x98\x80\"",
        "[]", "{}", "[1,[2,{\"a\":null}],true,false]", "{\"a\":1,\"a\":{\"b\":2}}", "\xEF\xBB\xBF{\"bom\": 1}",
        " \t\r\n[ 1 , 2 ] \n"}) {
    SCOPED_TRACE(text);
    const nlohmann::json theirs = nlohmann::json::parse(text);
    const nlohmann::json ours = read_text(text);
    EXPECT_EQ(ours, theirs);
    EXPECT_EQ(ours.dump(), theirs.dump());  // the same number types, too
  }
}

TEST(JsonReader, RefusesWhatNlohmannRefuses) {
  for (const char* text :
       {"", " ", "01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "nan", "Infinity", "-inf", "1e999",
        "[1,]", "{,}", "{\"a\" 1}", "{\"a\":1,}", "[1 2]", "tru", "nul", "\"\\x\"", "\"\\ud800\"",
        "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\x01\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
        "\"\xe0\x80\xaf\"", "\"abc", "[1] [2]", "{} x", "// c\n1", "\xEF\xBB", "[\x00]"}) {
    const std::string s(text, std::strlen(text) + (text[0] == '[' && text[1] == '\x00' ? 2 : 0));
    SCOPED_TRACE(s);
    EXPECT_FALSE(nlohmann::json::accept(s));
    EXPECT_FALSE(reader_accepts(s));
  }
}

TEST(JsonReader, ReadsAFileInPiecesAsTheTextReadsWhole) {
  // Long strings and numbers across the 1 MiB pieces of a file.
  nlohmann::json doc = nlohmann::json::array();
  for (int i = 0; i < 30000; ++i)
    doc.push_back({{"name", std::string(static_cast<std::size_t>(i % 97), 'x') + "\xc3\xa9"},
                   {"v", i * 0.123456789}, {"n", -i}});
  const std::string path = ::gpubench::testing::temp_dir() + "/pieces.json";
  ::gpubench::testing::write_file(path, doc.dump());
  std::FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  JsonReader reader(file);
  const nlohmann::json back = reader.value(1);
  reader.end();
  std::fclose(file);
  EXPECT_EQ(back, doc);
}

TEST(JsonReader, RefusesANestingBombWithoutRecursing) {
  const std::string bomb = "{\"context\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  EXPECT_FALSE(reader_accepts(bomb));
  EXPECT_TRUE(reader_accepts(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')));
  EXPECT_FALSE(reader_accepts(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')));
  const std::string message = error_of([&] { parse_result_text(bomb, "bomb.json"); });
  EXPECT_EQ(message, "bomb.json: byte " + std::to_string(12 + kMaxJsonDepth - 1) + ": nesting too deep");
  // Truncated, the syntax error is what is said (nlohmann's, as for any other file).
  EXPECT_NE(error_of([&] { parse_result_text(bomb.substr(0, bomb.size() - 5), "bomb.json"); }).find("syntax error"),
            std::string::npos);
}

TEST(RunStream, ReadsAResultFileAsTheDomPathDoes) {
  const std::string text = two_benchmark_run();
  const std::string path = ::gpubench::testing::temp_dir() + "/run.json";
  ::gpubench::testing::write_file(path, text);
  const ResultFile dom = parse_result_document(nlohmann::json::parse(text), path);
  for (const ResultFile& run : {parse_result_text(text, path), load_result_file(path)}) {
    ASSERT_EQ(run.benchmarks.size(), dom.benchmarks.size());
    for (std::size_t i = 0; i < dom.benchmarks.size(); ++i) {
      EXPECT_EQ(run.benchmarks[i].name, dom.benchmarks[i].name);
      EXPECT_EQ(run.benchmarks[i].metrics.at("bandwidth_gbps").values,
                dom.benchmarks[i].metrics.at("bandwidth_gbps").values);
      EXPECT_EQ(run.benchmarks[i].metrics.at("bandwidth_gbps").median,
                dom.benchmarks[i].metrics.at("bandwidth_gbps").median);
    }
    EXPECT_EQ(run.gpus.size(), dom.gpus.size());
  }
  EXPECT_EQ(load_run_document(path).results.size(), 2u);
}

TEST(RunStream, TruncatedAnywhereGivesTheDomPathsError) {
  const std::string text = two_benchmark_run();
  for (int seventh = 0; seventh < 7; ++seventh)
    expect_same_error(text.substr(0, text.size() * static_cast<std::size_t>(seventh) / 7), "f.json: byte ");
}

// A file that a crash left half-written can end in zeros, and nlohmann's lexer stops at a NUL
// byte: a whole document followed by zeros (and whatever came after) is damaged, for both paths
// and for every file read through parse_json_text (baselines, tolerances, presets).
TEST(RunStream, ZerosAfterTheDocumentAreDamageForBothPaths) {
  const std::string text = two_benchmark_run();
  const std::string zeros = text + std::string(64, '\0') + "{\"b\"";
  const std::string nul_at = "f.json: byte " + std::to_string(text.size()) + ": a NUL byte";
  expect_same_error(zeros, nul_at);
  testing::expect_bad_input([&] { parse_json_text(zeros, "f.json"); }, nul_at);
  testing::expect_bad_input([] { parse_json_text(std::string("2\0", 2), "f.json"); }, "f.json: byte 1: a NUL byte");
}

TEST(RunStream, ContentErrorsAndTheirPrecedenceAreTheDomPaths) {
  nlohmann::json doc = nlohmann::json::parse(two_benchmark_run());
  auto with = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json copy = doc;
    change(copy);
    return copy.dump();
  };
  auto metric = [](nlohmann::json& d, int entry) -> nlohmann::json& {
    return d["benchmarks"][entry]["gpubench"]["metrics"]["bandwidth_gbps"];
  };
  expect_same_error(with([&](auto& d) { metric(d, 1)["values"][2] = "fast"; }),
                    "/benchmarks/1/gpubench/metrics/bandwidth_gbps/values/2: expected a number, found a string");
  expect_same_error(with([&](auto& d) { metric(d, 0)["values"] = 3; }), "values: expected an array");
  expect_same_error(with([&](auto& d) { d["benchmarks"] = {{"a", 1}}; }), "/benchmarks: expected an array");
  expect_same_error(with([&](auto& d) { d.erase("benchmarks"); }), "missing required field \"benchmarks\"");
  // A bad header is said before a bad entry, wherever "benchmarks" stands in the file.
  expect_same_error(with([&](auto& d) {
                      metric(d, 0)["better"] = "more";
                      d["context"]["gpubench"]["schema"] = "gpubench/2";
                    }),
                    "unsupported schema");
  // A syntax error after a bad entry is said first.
  std::string late_syntax = with([&](auto& d) { metric(d, 0)["better"] = "more"; });
  late_syntax.insert(late_syntax.rfind('}'), ", \"tail\": NaN");
  expect_same_error(late_syntax, "syntax error");
  expect_same_error(with([&](auto& d) { metric(d, 0)["values"][0] = -1; }), "");  // read; judged later
  expect_same_error("[1, 2]", "f.json: /: expected an object");
  expect_same_error("{\n  \"x\": 1e999}", "f.json: byte 9 (line 2): number out of range: 1e999");
}

TEST(RunStream, NullSamplesAndDuplicatedKeysReadAsTheDomReadsThem) {
  nlohmann::json doc = nlohmann::json::parse(two_benchmark_run());
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"]["values"][3] = nullptr;
  std::string text = doc.dump();
  // "benchmarks" given twice: the later one stands, as in the DOM.
  text.insert(1, "\"benchmarks\": [{\"name\": 1}], ");
  const ResultFile run = parse_result_text(text, "f.json");
  ASSERT_EQ(run.benchmarks.size(), 2u);
  EXPECT_TRUE(std::isnan(run.benchmarks[0].metrics.at("bandwidth_gbps").values[3]));
  EXPECT_EQ(parse_result_document(nlohmann::json::parse(text), "f.json").benchmarks.size(), 2u);
  expect_same_error(doc.dump().insert(doc.dump().size() - 1, ", \"benchmarks\": 7"), "/benchmarks: expected an array");
}

}  // namespace
}  // namespace gpubench
