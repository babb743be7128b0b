#include "benches/attention/attention_axes.h"

#include "benches/attention/attention_shape.h"
#include "harness/report/exit_codes.h"

namespace gpubench::attention {
namespace {

// The presets as families are declared (static initialisation, before main). A preset file that
// does not load is reported when an attention family is expanded, so that commands not running
// the suite are unaffected and running it is exit 2.
std::string preset_error() {
  try {
    installed_presets();
    return "";
  } catch (const UsageError& error) {
    return error.message;
  }
}

}  // namespace

std::vector<std::string> model_axis_values() {
  if (!preset_error().empty()) return {"unloadable"};
  std::vector<std::string> values;
  for (const auto& preset : installed_presets()) values.push_back(preset.name);
  return values;
}

Family& add_shape_axes(Family& family, std::vector<std::int64_t> seq, std::vector<std::int64_t> quick_seq) {
  return family.axis("type", {"fp16", "bf16"})
      .axis("model", model_axis_values())
      .axis("batch", std::vector<std::int64_t>{4})
      .axis("seq", std::move(seq))
      .quick(std::move(quick_seq))
      .axis("causal", std::vector<std::int64_t>{0, 1})
      .where([](const Params&) {
        if (const std::string error = preset_error(); !error.empty()) throw UsageError{kExitBadInput, error};
        return true;
      });
}

}  // namespace gpubench::attention
