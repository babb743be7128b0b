#include "benches/attention/attention_axes.h"

#include "benches/attention/attention_shape.h"

namespace gpubench::attention {

std::vector<std::string> model_axis_values(bool in_sweep) {
  std::vector<std::string> values;
  for (const auto& preset : installed_presets())
    if (preset.sweep == in_sweep) values.push_back(preset.name);
  return values;
}

// The model axis is computed at expansion from configs/attention_shapes.json: a preset file
// that does not load is exit 2 when an attention family is expanded, and commands that do not
// run the suite are unaffected.
Family& add_shape_axes(Family& family, std::vector<std::int64_t> seq, std::vector<std::int64_t> quick_seq,
                       std::vector<std::int64_t> batch) {
  // --quick: one configuration, the shape of the models the suite is mostly run for.
  return family.axis_str("type", {"fp16", "bf16"}, {"bf16"})
      .axis_computed(
          "model", [](const ExpandContext&) { return model_axis_values(true); }, Axis::Kind::kString, {"llama3_8b"},
          [](const ExpandContext&) { return model_axis_values(false); })
      .axis_int("batch", batch, {batch.front()})
      .axis_int("seq", std::move(seq), std::move(quick_seq))
      .axis_int("causal", {0, 1}, {1});
}

}  // namespace gpubench::attention
