#include "benches/conv/conv_axes.h"

#include "benches/conv/layer_sets.h"
#include "harness/model/exit_codes.h"

namespace gpubench::conv {
namespace {

// The sets as families are declared (static initialisation, before main). A set that does not
// load is reported when a conv family is expanded, so that commands not running the conv
// suite are unaffected and running it is exit 2 with the file and the layer.
struct DeclaredSets {
  std::vector<LayerSet> sets;
  std::string error;
};

const DeclaredSets& declared_sets() {
  static const DeclaredSets declared = [] {
    DeclaredSets d;
    try {
      d.sets = installed_layer_sets();
    } catch (const UsageError& error) {
      d.error = error.message;
    }
    return d;
  }();
  return declared;
}


}  // namespace

Family& add_layer_axes(Family& family, bool networks_only, bool layers, bool three_by_three_only) {
  const DeclaredSets& declared = declared_sets();
  const std::vector<std::string> unloadable{"unloadable"};
  const QuickLayer quick = declared.error.empty() ? quick_layer(declared.sets, three_by_three_only) : QuickLayer{};
  auto quick_values = [](const std::string& name) {
    return name.empty() ? std::vector<std::string>{} : std::vector<std::string>{name};
  };
  const bool loaded = declared.error.empty();
  family.axis_str("net", loaded ? net_axis_values(declared.sets, networks_only) : unloadable, quick_values(quick.net),
                  loaded ? net_axis_values(declared.sets, networks_only, false) : std::vector<std::string>{});
  // The layers of the nets the run takes: a --config that names a set outside the sweep gets
  // its layers without listing them.
  if (layers)
    family.axis_computed(
        "layer",
        [three_by_three_only](const ExpandContext& expand) {
          const DeclaredSets& sets = declared_sets();
          if (!sets.error.empty()) throw UsageError{kExitBadInput, sets.error};
          return layer_axis_values(sets.sets, three_by_three_only, expand.earlier_axes.at("net"));
        },
        Axis::Kind::kString, quick_values(quick.layer));
  return family.where([layers](const Params& params) {
    const DeclaredSets& sets = declared_sets();
    if (!sets.error.empty()) throw UsageError{kExitBadInput, sets.error};
    return !layers || has_layer(sets.sets, params.str("net"), params.str("layer"));
  });
}

Family& add_problem_axes(Family& family) {
  return family.axis_int("n", {128})
      .axis_str("type", {"fp32", "tf32", "fp16", "bf16"}, {"fp16"})
      .axis_str("layout", {"nhwc"}, {}, {"nchw"});
}

Family& add_workspace_axis(Family& family) { return family.axis_int("workspace_mib", {kDefaultWorkspaceMib}); }

FamilySettings conv_settings(double max_time_s) {
  FamilySettings settings{300.0, max_time_s, {}};
  settings.min_time_s = 0.1;
  // Most convolutions rank their candidates: a rest before each measurement would stretch the
  // sweep past three minutes (figures after ranking run about a second further into the load).
  settings.rest_s = 0.0;
  return power_limited(settings);
}

}  // namespace gpubench::conv
