#include "benches/attention/attention_axes.h"

#include "benches/attention/attention_shape.h"

namespace gpubench::attention {

std::vector<std::string> model_axis_values(bool in_sweep, std::int64_t head_dim) {
  std::vector<std::string> values;
  for (const auto& preset : installed_presets())
    if (preset.sweep == in_sweep && (head_dim == 0 || preset.head_dim == head_dim)) values.push_back(preset.name);
  return values;
}

// The model axis is computed at expansion from configs/attention_shapes.json: a preset file
// that does not load is exit 2 when an attention family is expanded, and commands that do not
// run the suite are unaffected.
Family& add_shape_axes(Family& family, std::vector<std::int64_t> seq, std::vector<std::int64_t> quick_seq,
                       std::vector<std::int64_t> batch, std::vector<std::string> types, std::int64_t head_dim) {
  // --quick: one configuration, the shape of the models the suite is mostly run for.
  const std::string quick_type = types.back();
  return family.axis_str("type", std::move(types), {quick_type})
      .axis_computed(
          "model", [head_dim](const ExpandContext&) { return model_axis_values(true, head_dim); }, Axis::Kind::kString,
          {"llama3_8b"}, [head_dim](const ExpandContext&) { return model_axis_values(false, head_dim); })
      .axis_int("batch", batch, {batch.front()})
      .axis_int("seq", std::move(seq), std::move(quick_seq))
      .axis_int("causal", {0, 1}, {1});
}

FamilySettings forward_settings() {
  FamilySettings settings{300.0, 1.0, {}};
  settings.rest_s = 0.0;
  return power_limited(settings);
}

}  // namespace gpubench::attention
