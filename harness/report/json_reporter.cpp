#include <ostream>

#include "harness/report/reporter.h"

namespace gpubench {
namespace {

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void finish(const RunDocument& document) override { out_ << to_json(document).dump(2) << "\n" << std::flush; }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> json_reporter(std::ostream& out) { return std::make_unique<JsonReporter>(out); }

}  // namespace gpubench
