#include <cstdio>

#include "harness/report/reporter.h"

namespace gpubench {
namespace {

class JsonFileReporter : public Reporter {
 public:
  explicit JsonFileReporter(std::string path) : path_(std::move(path)) {}

  // The first write proves the path writable before anything is measured.
  void context(const RunDocument& document) override {
    so_far_ = document;
    so_far_.complete = false;
    write_file_atomically(path_, to_json(so_far_).dump(2) + "\n");
  }

  // A failed rewrite mid-run (disk full) must not throw away the measurements still to come:
  // it is reported once, and the final write tries again.
  void result(const BenchResult& result) override {
    so_far_.results.push_back(result);
    try {
      write_file_atomically(path_, to_json(so_far_).dump(2) + "\n");
    } catch (const UsageError& error) {
      if (!warned_) std::fprintf(stderr, "gpubench: %s; retrying at the end of the run\n", error.message.c_str());
      warned_ = true;
    }
  }

  void finish(const RunDocument& document) override {
    written_ = write_file_or_fallback(path_, to_json(document).dump(2) + "\n");
  }
  bool write_failed() const override { return !written_; }

 private:
  std::string path_;
  RunDocument so_far_;
  bool warned_ = false;
  bool written_ = true;
};

}  // namespace

std::unique_ptr<Reporter> json_file_reporter(const std::string& path) {
  return std::make_unique<JsonFileReporter>(path);
}

}  // namespace gpubench
