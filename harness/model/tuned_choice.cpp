#include "harness/model/tuned_choice.h"

#include <algorithm>

namespace gpubench {
namespace {

// "algo_id 66 tile 10 ...": the identity's members, for a choice recorded without a label.
std::string fields_text(const nlohmann::json& identity, const nlohmann::json& other) {
  if (!identity.is_object()) return identity.dump();
  std::string out;
  for (auto it = identity.begin(); it != identity.end(); ++it) {
    if (other.is_object() && other.contains(it.key()) && other[it.key()] == it.value()) continue;
    out += (out.empty() ? "" : " ") + it.key() + " " +
           (it->is_string() ? it->get<std::string>() : it->dump());
  }
  return out;
}

std::string labels(const std::vector<TunedChoice>& choices) {
  std::string out;
  for (const TunedChoice& c : choices)
    out += (out.empty() ? "" : "; ") + (c.label.empty() ? fields_text(c.identity, nullptr) : c.label);
  return out;
}

bool holds(const std::vector<TunedChoice>& choices, const TunedChoice& choice) {
  return std::any_of(choices.begin(), choices.end(), [&](const TunedChoice& c) { return same_choice(c, choice); });
}

}  // namespace

std::optional<TunedChoice> tuned_choice(const nlohmann::json& choice) {
  if (!choice.is_object()) return std::nullopt;
  const auto chosen = choice.find("chosen");
  if (chosen == choice.end() || chosen->is_null()) return std::nullopt;
  TunedChoice out{*chosen, ""};
  const auto index = choice.find("chosen_index");
  const auto candidates = choice.find("candidates");
  if (index != choice.end() && index->is_number_integer() && index->get<long long>() >= 0 &&
      candidates != choice.end() && candidates->is_array() &&
      index->get<unsigned long long>() < candidates->size()) {
    const nlohmann::json& candidate = (*candidates)[index->get<std::size_t>()];
    if (candidate.is_object() && candidate.contains("label") && candidate["label"].is_string())
      out.label = candidate["label"].get<std::string>();
  }
  return out;
}

bool same_choice(const TunedChoice& a, const TunedChoice& b) { return a.identity == b.identity; }

void add_choice(const nlohmann::json& choice, std::vector<TunedChoice>& choices) {
  if (auto chosen = tuned_choice(choice); chosen && !holds(choices, *chosen)) choices.push_back(std::move(*chosen));
}

bool choices_differ(const std::vector<TunedChoice>& base, const std::vector<TunedChoice>& now) {
  if (base.empty() || now.empty()) return false;
  auto all_held = [](const std::vector<TunedChoice>& from, const std::vector<TunedChoice>& in) {
    return std::all_of(from.begin(), from.end(), [&](const TunedChoice& c) { return holds(in, c); });
  };
  return !all_held(base, now) || !all_held(now, base);
}

std::string choice_text(const std::vector<TunedChoice>& choices, const std::vector<TunedChoice>& other) {
  std::string text = labels(choices);
  if (text != labels(other) || choices.empty() || other.empty()) return text;
  const std::string fields = fields_text(choices.front().identity, other.front().identity);
  return fields.empty() ? text : text + " (" + fields + ")";
}

}  // namespace gpubench
