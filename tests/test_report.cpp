// The result document (schema gpubench/1) and its renderings: the context fields DESIGN.md
// lists, the table / CSV / markdown rows (throttled results marked, failed rows with their
// reason), the atomic file write and its fallback file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "harness/model/exit_codes.h"
#include "harness/report/report.h"
#include "harness/model/text_table.h"
#include "tests/report_fixtures.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::bad_result;
using gpubench::testing::document_of;
using gpubench::testing::mixed_results;
using gpubench::testing::ok_result;
using gpubench::testing::one_gpu_context;
using gpubench::testing::read_file;
using gpubench::testing::render;
using gpubench::testing::temp_dir;
using gpubench::testing::write_file;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t eol; (eol = text.find('\n', start)) != std::string::npos; start = eol + 1)
    lines.push_back(text.substr(start, eol - start));
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(Document, ContextCarriesTheSchemaAndTheFieldsOfTheDesign) {
  const nlohmann::json doc = to_json(document_of(one_gpu_context(), mixed_results(), "gpubench --suite memory"));
  ASSERT_TRUE(doc.contains("context"));
  const auto& context = doc.at("context");
  // Google Benchmark's context fields.
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
                          "caches", "load_avg", "library_build_type", "library_version", "json_schema_version"})
    EXPECT_TRUE(context.contains(key)) << key;
  const auto& g = context.at("gpubench");
  EXPECT_EQ(g.at("schema"), "gpubench/1");
  EXPECT_TRUE(std::regex_match(g.at("version").get<std::string>(), std::regex(R"(\d+\.\d+\.\d+)")))
      << g.at("version");
  EXPECT_FALSE(g.at("git_commit").get<std::string>().empty());
  EXPECT_EQ(g.at("command_line"), "gpubench --suite memory");
  EXPECT_EQ(g.at("complete"), true);
  EXPECT_TRUE(g.at("interrupted").is_null());
  EXPECT_TRUE(g.at("config").is_object());
  EXPECT_EQ(g.at("driver_version"), "570.86.15");
  EXPECT_EQ(g.at("cuda_driver"), "12.8");
  EXPECT_EQ(g.at("cuda_runtime"), "12.8");
  EXPECT_EQ(g.at("cublas"), "12.8.3");
  EXPECT_EQ(g.at("cudnn"), "9.7.0");
  EXPECT_EQ(g.at("nccl"), "2.25.1");
  EXPECT_EQ(g.at("nvml").at("available"), true);
  ASSERT_EQ(g.at("gpus").size(), 1u);
  const auto& gpu = g.at("gpus")[0];
  for (const char* key : {"index", "name", "uuid", "pci_bus_id", "sm_count", "cc", "memory_bytes", "l2_bytes",
                          "sm_clock_max_mhz", "mem_clock_max_mhz", "memory_bus_width_bits", "pcie", "nvlink",
                          "numa_node", "ecc_enabled", "mig_mode", "power_limit_w"})
    EXPECT_TRUE(gpu.contains(key)) << key;
  EXPECT_EQ(gpu.at("cc"), "9.0");
  EXPECT_EQ(gpu.at("pcie"), (nlohmann::json{{"gen", 5}, {"width", 16}, {"gen_max", 5}, {"width_max", 16}}));
  EXPECT_EQ(gpu.at("nvlink").at("links_active"), 18);
  EXPECT_EQ(gpu.at("ecc_enabled"), true);
  EXPECT_EQ(g.at("links"), (nlohmann::json{{"X"}}));
  ASSERT_TRUE(g.at("peak").contains("gpu0"));
  EXPECT_GT(g.at("peak").at("gpu0").at("hbm_gbps").get<double>(), 0);
}

TEST(Document, BenchmarksInRunOrder) {
  const auto results = mixed_results();
  const nlohmann::json doc = to_json(document_of(one_gpu_context(), results, "x"));
  ASSERT_EQ(doc.at("benchmarks").size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    nlohmann::json entry = doc["benchmarks"][i];
    EXPECT_EQ(entry.at("name"), results[i].name);
    entry.erase("family_index");
    entry.erase("per_family_instance_index");
    EXPECT_EQ(entry, to_json(results[i]));
  }
}

TEST(Document, NoGpuContextStillMakesAValidDocument) {
  Context none;
  none.nvml_error = "libnvidia-ml.so.1: cannot open shared object file";
  none.gpu_error = "no CUDA-capable device is detected";
  const nlohmann::json doc = to_json(document_of(none, {}, "gpubench"));
  const auto& g = doc.at("context").at("gpubench");
  EXPECT_EQ(g.at("schema"), "gpubench/1");
  EXPECT_TRUE(g.at("gpus").is_array());
  EXPECT_TRUE(g.at("gpus").empty());
  EXPECT_EQ(g.at("nvml").at("available"), false);
  EXPECT_TRUE(doc.at("benchmarks").is_array());
  EXPECT_TRUE(doc.at("benchmarks").empty());
}

TEST(ParseFormat, KnownAndUnknownNames) {
  EXPECT_EQ(parse_format("table"), Format::kTable);
  EXPECT_EQ(parse_format("json"), Format::kJson);
  EXPECT_EQ(parse_format("csv"), Format::kCsv);
  EXPECT_EQ(parse_format("md"), Format::kMarkdown);
  EXPECT_EQ(parse_format("markdown"), Format::kMarkdown);
  try {
    parse_format("xml");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2);
    EXPECT_TRUE(contains(error.message, "xml")) << error.message;
  }
}

TEST(Render, JsonIsTheDocumentItself) {
  const RunDocument doc = document_of(one_gpu_context(), mixed_results(), "x");
  EXPECT_EQ(nlohmann::json::parse(render(doc, Format::kJson)), to_json(doc));
}

TEST(Render, TableShowsMetricNoisePeakAndStatus) {
  const RunDocument doc = document_of(one_gpu_context(), mixed_results(), "x");
  const std::string text = render(doc, Format::kTable);
  const auto lines = lines_of(text);
  // Header, rule, five rows, summary.
  ASSERT_EQ(lines.size(), 8u) << text;
  for (const char* column : {"benchmark", "metric", "median", "noise", "% of peak", "status"})
    EXPECT_TRUE(contains(lines[0], column)) << column;
  EXPECT_EQ(lines[1].find_first_not_of('-'), std::string::npos) << lines[1];

  const std::string& triad = lines[2];
  EXPECT_TRUE(contains(triad, "memory/stream/op:triad/array_bytes:1073741824/gpu:gpu0"));
  EXPECT_TRUE(contains(triad, "bandwidth_gbps"));
  EXPECT_TRUE(contains(triad, "4000 GB/s"));
  EXPECT_TRUE(contains(triad, "1.0%"));   // cv of 0.99x, x, 1.01x
  EXPECT_TRUE(contains(triad, "83.3%"));  // 4000 of 4800
  EXPECT_TRUE(triad.size() >= 2 && triad.compare(triad.size() - 2, 2, "ok") == 0) << triad;

  EXPECT_TRUE(contains(lines[3], "op:dot"));
  EXPECT_TRUE(contains(lines[3], "3000 GB/s"));
  EXPECT_TRUE(contains(lines[3], "ok (throttled)"));
  EXPECT_FALSE(contains(triad, "throttled"));

  EXPECT_TRUE(contains(lines[4], "op:copy"));
  EXPECT_TRUE(contains(lines[4], "failed: verification failed: element 3, expected 1"));
  EXPECT_FALSE(contains(lines[4], "GB/s"));  // a failed result shows no figure
  EXPECT_TRUE(contains(lines[5], "timeout: no result within 2 s"));
  EXPECT_TRUE(contains(lines[6], "skipped: needs 2 GPUs (1 selected)"));

  EXPECT_EQ(lines[7], "2 ok, 2 failed, 1 skipped; 1 measured while the GPU throttled");
}

TEST(Render, TableColumnsAreAligned) {
  const RunDocument doc = document_of(one_gpu_context(), mixed_results(), "x");
  const auto lines = lines_of(render(doc, Format::kTable));
  // The second column starts at the same place on every row.
  const std::size_t metric_at = lines[0].find("metric");
  EXPECT_EQ(lines[2].find("bandwidth_gbps"), metric_at);
  EXPECT_EQ(lines[3].find("bandwidth_gbps"), metric_at);
}

TEST(Render, TableNamesAMetricThatDoesNotApplyWithWhy) {
  BenchResult one_rank = ok_result("collective/all_reduce/bytes:1024", 2000);
  one_rank.primary_metric = "algbw_gbps";
  one_rank.metrics["algbw_gbps"] = one_rank.metrics.at("bandwidth_gbps");
  one_rank.not_applicable = {{"busbw_gbps", "1 rank"}};
  const std::string text = render(document_of(one_gpu_context(), {one_rank}, "x"), Format::kTable);
  EXPECT_TRUE(contains(text, "algbw_gbps (busbw_gbps n/a: 1 rank)")) << text;
  EXPECT_FALSE(contains(text, " 0 GB/s")) << text;
}

TEST(Render, SummaryWithoutThrottling) {
  const RunDocument doc =
      document_of(one_gpu_context(), {ok_result("memory/stream/op:triad/gpu:gpu0", 100)}, "x");
  EXPECT_EQ(lines_of(render(doc, Format::kTable)).back(), "1 ok, 0 failed, 0 skipped");
}

TEST(Render, RepetitionsAreNumbered) {
  std::vector<BenchResult> results;
  for (int i = 0; i < 3; ++i) {
    results.push_back(ok_result("memory/stream/op:triad/gpu:gpu0", 100 + i));
    results.back().repetitions = 3;
    results.back().repetition_index = i;
  }
  const std::string text = render(document_of(one_gpu_context(), results, "x"), Format::kTable);
  EXPECT_TRUE(contains(text, "memory/stream/op:triad/gpu:gpu0 #0"));
  EXPECT_TRUE(contains(text, "memory/stream/op:triad/gpu:gpu0 #1"));
  EXPECT_TRUE(contains(text, "memory/stream/op:triad/gpu:gpu0 #2"));
}

TEST(Render, CsvIsTidyOneRowPerResultAndMetric) {
  const RunDocument doc = document_of(one_gpu_context(), mixed_results(), "x");
  const auto lines = lines_of(render(doc, Format::kCsv));
  ASSERT_EQ(lines.size(), 8u);  // header, two metrics of each ok result, one row of each other, no summary
  EXPECT_EQ(lines[0], "run_id,host,gpu_index,gpu_uuid,suite,family,repetition,metric,unit,median,mean,min,max,"
                      "stddev,cv_pct,samples,status,verified,pct_of_peak,error");
  EXPECT_TRUE(contains(lines[1], ",memory,stream,0,bandwidth_gbps,GB/s,4000,4000,3960,4040,40,1,3,ok,true,83.33333333333333,"))
      << lines[1];
  // The error has a comma in it: RFC 4180 quoting.
  EXPECT_TRUE(contains(lines[5], ",0,failed,false,,\"verification failed: element 3, expected 1\"")) << lines[5];
}

TEST(Render, CsvQuotesEmbeddedQuotes) {
  const RunDocument doc = document_of(
      one_gpu_context(), {bad_result("memory/stream/op:x", Status::kFailed, "bad \"value\"")}, "x");
  EXPECT_TRUE(contains(lines_of(render(doc, Format::kCsv))[1], ",\"bad \"\"value\"\"\"")) << render(doc, Format::kCsv);
}

TEST(Render, MarkdownIsAPipeTableWithASummary) {
  const RunDocument doc = document_of(one_gpu_context(), mixed_results(), "x");
  const auto lines = lines_of(render(doc, Format::kMarkdown));
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[0], "| benchmark | metric | median | noise (cv) | % of peak | status |");
  EXPECT_EQ(lines[1], "|---|---|---:|---:|---:|---|");
  EXPECT_EQ(lines[2], "| memory/stream/op:triad/array_bytes:1073741824/gpu:gpu0 | bandwidth_gbps | 4000 GB/s | 1.0% | "
                      "83.3% | ok |");
  EXPECT_TRUE(contains(lines[3], "| ok (throttled) |"));
  EXPECT_TRUE(contains(lines[4], "| failed: verification failed: element 3, expected 1 |"));
  EXPECT_EQ(lines.back(), "2 ok, 2 failed, 1 skipped; 1 measured while the GPU throttled");
}

TEST(Render, MarkdownEscapesPipes) {
  const RunDocument doc =
      document_of(one_gpu_context(), {bad_result("memory/stream/op:x", Status::kFailed, "a|b")}, "x");
  EXPECT_TRUE(contains(render(doc, Format::kMarkdown), "failed: a\\|b"));
}

TEST(Printable, ControlAndBidirectionalCharactersAreWrittenVisibly) {
  EXPECT_EQ(printable("a\nb\tc\r\x1b[2J\x7f"), "a\\nb\\tc\\r\\x1b[2J\\x7f");
  EXPECT_EQ(printable("x\u202ey\u2066z\u200f\u061c"), "x\\u202ey\\u2066z\\u200f\\u061c");
  EXPECT_EQ(printable("csi\u009b31m"), "csi\\u009b31m");                      // C1, as UTF-8
  EXPECT_EQ(printable(std::string("raw\x9b" "31m\xc0\xaf")), "raw\\x9b31m\\xc0\\xaf");  // not UTF-8
  EXPECT_EQ(printable("4.2 \u00b5s \u00b1 1 %, \u00d7 2, \u65e5\u672c, \U0001f680"),
            "4.2 \u00b5s \u00b1 1 %, \u00d7 2, \u65e5\u672c, \U0001f680");  // text stays text
  EXPECT_EQ(printable(printable("\x1b\u202e")), printable("\x1b\u202e"));     // idempotent
}

TEST(Render, TableAndMarkdownEscapeNamesFromFiles) {
  const std::string name = "memory/stream/op:triad\u202e\x1b[31m";
  const RunDocument doc =
      document_of(one_gpu_context(), {bad_result(name, Status::kFailed, "bad\u2067text\n")}, "x");
  for (Format format : {Format::kTable, Format::kMarkdown}) {
    const std::string out = render(doc, format);
    EXPECT_EQ(out.find("\x1b"), std::string::npos) << out;
    EXPECT_EQ(out.find("\u202e"), std::string::npos) << out;
    EXPECT_TRUE(contains(out, "op:triad\\u202e\\x1b[31m")) << out;
    EXPECT_TRUE(contains(out, "bad\\u2067text\\n")) << out;
  }
}

TEST(Render, EmptyRun) {
  const RunDocument doc = document_of(one_gpu_context(), {}, "x");
  EXPECT_EQ(lines_of(render(doc, Format::kTable)).back(), "0 ok, 0 failed, 0 skipped");
  EXPECT_EQ(lines_of(render(doc, Format::kCsv)).size(), 1u);
}

std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(WriteFileAtomically, WritesTheWholeTextAndLeavesNoTemporaryFile) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/run.json";
  const std::string text = to_json(document_of(one_gpu_context(), mixed_results(), "x")).dump(2) + "\n";
  write_file_atomically(path, text);
  EXPECT_EQ(read_file(path), text);
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"run.json"});
}

TEST(WriteFileAtomically, ReplacesTheContentWhole) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/run.json";
  write_file(path, std::string(100000, 'x'));
  write_file_atomically(path, "{}\n");
  EXPECT_EQ(read_file(path), "{}\n");  // nothing of the longer old content remains
  write_file_atomically(path, "");
  EXPECT_EQ(read_file(path), "");
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"run.json"});
}

TEST(WriteFileAtomically, ReplacesByRenameSoReadersNeverSeeHalfAFile) {
  // A reader holding the old file keeps reading the old, complete content: the new one is a new
  // inode put in place by rename, not the old one truncated and rewritten.
  const std::string dir = temp_dir();
  const std::string path = dir + "/run.json";
  write_file(path, "old content\n");
  const std::string keep = dir + "/old-link";
  std::filesystem::create_hard_link(path, keep);  // stands for a reader that has the file open
  write_file_atomically(path, "new content\n");
  EXPECT_EQ(read_file(path), "new content\n");
  EXPECT_EQ(read_file(keep), "old content\n");
  EXPECT_EQ(std::filesystem::hard_link_count(path), 1u);
}

TEST(WriteFileAtomically, RelativePathInTheCurrentDirectory) {
  const std::string dir = temp_dir();
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  write_file_atomically("plain.json", "[]\n");
  std::filesystem::current_path(previous);
  EXPECT_EQ(read_file(dir + "/plain.json"), "[]\n");
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"plain.json"});
}

TEST(WriteFileAtomically, MissingDirectoryIsAUsageErrorAndWritesNothing) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/no/such/dir/run.json";
  try {
    write_file_atomically(path, "{}\n");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2);
    EXPECT_TRUE(contains(error.message, path)) << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos);  // one line
  }
  EXPECT_TRUE(entries_of(dir).empty());
}

TEST(WriteFileAtomically, TargetThatIsADirectoryIsAUsageErrorAndLeavesNoTemporaryFile) {
  const std::string dir = temp_dir();
  std::filesystem::create_directory(dir + "/taken");
  try {
    write_file_atomically(dir + "/taken", "{}\n");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2);
  }
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"taken"});
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/taken"));
}

// /dev/full stands for a full disk. A device (or /dev/stdout, a FIFO) is written in place: a
// rename over it would put a regular file where the device was, as root in /dev too.
TEST(WriteFileAtomically, ADeviceIsWrittenInPlaceAndAFullOneIsAnError) {
  const std::string dir = temp_dir(), device = dir + "/full";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) GTEST_SKIP() << "mknod needs root";
  try {
    write_file_atomically(device, "{}\n");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, kExitCannotWrite);
    EXPECT_TRUE(contains(error.message, device + ": cannot write: No space left on device")) << error.message;
  }
  EXPECT_TRUE(std::filesystem::is_character_file(device));
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"full"});
  EXPECT_NO_THROW(check_writable(device));  // it opens: only a write finds it full
}

// Sets TMPDIR for one test, so that fallback files land in a test's own directory.
class TmpdirScope {
 public:
  explicit TmpdirScope(const std::string& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirScope() {
    if (old_.empty()) unsetenv("TMPDIR");
    else setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(WriteFileOrFallback, AFailedWriteLeavesTheTextInAFallbackFileItNames) {
  const std::string dir = temp_dir();
  write_file(dir + "/file", "");
  const std::string path = dir + "/file/run.json";  // its directory is a file: no write can succeed
  const TmpdirScope tmpdir(dir);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(write_file_or_fallback(path, "{\"results\": 1}\n"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::regex said("^gpubench: " + path + ": cannot write: Not a directory; written to (" + dir +
                        "/gpubench-run-[A-Za-z0-9]{6}\\.json) instead\n$");
  std::smatch fallback;
  ASSERT_TRUE(std::regex_match(err, fallback, said)) << err;
  EXPECT_EQ(read_file(fallback[1]), "{\"results\": 1}\n");
}

TEST(WriteFileOrFallback, AWriteThatSucceedsTakesNoFallback) {
  const std::string dir = temp_dir();
  const TmpdirScope tmpdir(dir);
  EXPECT_TRUE(write_file_or_fallback(dir + "/run.json", "{}\n"));
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"run.json"});
}

}  // namespace
}  // namespace gpubench
