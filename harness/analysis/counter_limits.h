#pragma once
// The baseline's health.counter_limits: what one suite may add to a GPU's error counters.
#include <nlohmann/json.hpp>

#include "harness/model/health.h"
#include "harness/model/json_at.h"

namespace gpubench {

// Sets the limits the object names, leaving the others at their defaults; an unknown key, a
// negative limit or a non-integer count fails naming the file and the JSON pointer.
void read_counter_limits(const JsonAt& node, CounterLimits& limits);
nlohmann::json counter_limits_json(const CounterLimits& limits);

}  // namespace gpubench
