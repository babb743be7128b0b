#pragma once
// What a tuned family chose (gpubench.choice, written by State::tune): the chosen candidate's
// identity as the family recorded it ({"algo_id", "tile", "stages", ...} for cuBLASLt,
// {"engine", "knobs", ...} for cuDNN) and its label. The one place that says whether two runs
// chose the same algorithm or engine, for every family alike: their identities are equal.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

struct TunedChoice {
  nlohmann::json identity;  // choice.chosen
  std::string label;        // the chosen candidate's, e.g. "engine 2 (tensor_core) knobs 24=7"
};

// The choice a gpubench.choice record names; nullopt where it names none (no record, or every
// candidate failed and "chosen" is null).
std::optional<TunedChoice> tuned_choice(const nlohmann::json& choice);
bool same_choice(const TunedChoice& a, const TunedChoice& b);
// Adds the record's choice to `choices` (a benchmark's, over its repetitions) unless it is there.
void add_choice(const nlohmann::json& choice, std::vector<TunedChoice>& choices);
// Whether two runs' choices differ: each side lists the distinct choices of its repetitions,
// and the sides differ when one holds a choice that the other does not. A side with none (a
// file from before choices were recorded) differs from nothing.
bool choices_differ(const std::vector<TunedChoice>& base, const std::vector<TunedChoice>& now);
// `choices` for a table: the labels, "; " between repetitions' distinct choices. Where they read
// as `other`'s do (a label names only the main fields), the identity fields that differ follow
// in brackets: "algo 66 tile 10 stages 35 (cluster_shape 3)".
std::string choice_text(const std::vector<TunedChoice>& choices, const std::vector<TunedChoice>& other);

}  // namespace gpubench
