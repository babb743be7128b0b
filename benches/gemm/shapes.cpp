#include "benches/gemm/shapes.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include "harness/model/config_files.h"
#include "harness/model/exit_codes.h"

namespace gpubench::gemm {
namespace {

// cuBLASLt takes 64-bit sizes, but a dimension beyond this is a typo, not a GEMM that fits.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
// Constant-initialised: families read the file from static initialisers in other files.
constexpr const char* kEntryKeys[] = {"name", "m", "n", "k", "square", "batch", "l2_modes", "only"};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw UsageError{kExitBadInput, where + ": " + what};
}

std::int64_t dimension(const nlohmann::json& value, const std::string& where, const std::string& key) {
  if (!value.is_number_integer() || value.get<std::int64_t>() <= 0 || value.get<std::int64_t>() > kMaxDimension)
    bad(where, key + " must be a positive integer up to " + std::to_string(kMaxDimension) + ", not " + value.dump());
  return value.get<std::int64_t>();
}

std::vector<std::int64_t> dimensions(const nlohmann::json& entry, const std::string& key, const std::string& where) {
  if (!entry.contains(key)) bad(where, "needs \"" + key + "\"");
  const auto& value = entry.at(key);
  if (!value.is_array()) return {dimension(value, where, key)};
  if (value.empty()) bad(where, key + " is an empty list");
  std::vector<std::int64_t> out;
  for (const auto& v : value) out.push_back(dimension(v, where, key));
  return out;
}

std::vector<std::string> known_values(const std::string& axis) {
  if (axis == "type") return precision_names();
  if (axis == "layout") return {"tn", "nn"};
  if (axis == "algo") return {"heuristic", "best"};
  return {};
}

std::map<std::string, std::vector<std::string>> only_axes(const nlohmann::json& only, const std::string& where) {
  if (!only.is_object()) bad(where, "only must be an object of axis -> values");
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [axis, values] : only.items()) {
    const std::vector<std::string> known = known_values(axis);
    if (known.empty()) bad(where, "only." + axis + ": not an axis an entry restricts (type, layout, algo)");
    if (!values.is_array() || values.empty()) bad(where, "only." + axis + " must be a non-empty list");
    for (const auto& v : values) {
      if (!v.is_string() || std::find(known.begin(), known.end(), v.get<std::string>()) == known.end())
        bad(where, "only." + axis + ": unknown value " + v.dump());
      out[axis].push_back(v.get<std::string>());
    }
  }
  return out;
}

ShapeEntry parse_entry(const nlohmann::json& entry, const std::string& where) {
  if (!entry.is_object()) bad(where, "an entry must be an object");
  for (const auto& [key, value] : entry.items())
    if (std::find(std::begin(kEntryKeys), std::end(kEntryKeys), key) == std::end(kEntryKeys))
      bad(where, "unknown key \"" + key + "\"");
  ShapeEntry out;
  if (entry.contains("square")) {
    if (entry.contains("m") || entry.contains("n") || entry.contains("k")) bad(where, "square and m/n/k together");
    out.m = out.n = out.k = dimensions(entry, "square", where);
    out.square = true;
  } else {
    out.m = dimensions(entry, "m", where);
    out.n = dimensions(entry, "n", where);
    out.k = dimensions(entry, "k", where);
  }
  if (entry.contains("batch")) out.batch = dimension(entry.at("batch"), where, "batch");
  if (entry.contains("l2_modes")) {
    if (!entry.at("l2_modes").is_boolean()) bad(where, "l2_modes must be true or false");
    out.l2_modes = entry.at("l2_modes").get<bool>();
  }
  if (out.l2_modes && out.batch > 1) bad(where, "l2_modes is for single GEMMs (batch 1)");
  if (entry.contains("only")) out.only = only_axes(entry.at("only"), where);
  return out;
}

bool feeds(const ShapeEntry& entry, ShapeUse use) {
  switch (use) {
    case ShapeUse::kMatmul: return entry.batch == 1;
    case ShapeUse::kStrided: return entry.batch > 1;
    case ShapeUse::kCache: return entry.l2_modes;
  }
  return false;
}

bool contains(const std::vector<std::int64_t>& values, std::int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool lists(const ShapeEntry& entry, const Shape& shape) {
  if (entry.square && !(shape.m == shape.n && shape.n == shape.k)) return false;
  return contains(entry.m, shape.m) && contains(entry.n, shape.n) && contains(entry.k, shape.k) &&
         entry.batch == shape.batch;
}

}  // namespace

std::vector<std::int64_t> ShapeCatalog::values(const std::string& dimension, ShapeUse use) const {
  std::set<std::int64_t> out;
  for (const auto& entry : entries_) {
    if (!feeds(entry, use)) continue;
    const std::vector<std::int64_t>& list = dimension == "m"   ? entry.m
                                            : dimension == "n" ? entry.n
                                            : dimension == "k" ? entry.k
                                                               : std::vector<std::int64_t>{entry.batch};
    out.insert(list.begin(), list.end());
  }
  return {out.begin(), out.end()};
}

bool ShapeCatalog::allows(const Shape& shape, const std::map<std::string, std::string>& axes, ShapeUse use) const {
  for (const auto& entry : entries_) {
    if (!feeds(entry, use) || !lists(entry, shape)) continue;
    const bool axes_allowed = std::all_of(axes.begin(), axes.end(), [&](const auto& axis) {
      const auto only = entry.only.find(axis.first);
      return only == entry.only.end() ||
             std::find(only->second.begin(), only->second.end(), axis.second) != only->second.end();
    });
    if (axes_allowed) return true;
  }
  return false;
}

ShapeCatalog parse_shapes(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object() || !document.contains("shapes") || !document.at("shapes").is_array())
    bad(source, "needs a \"shapes\" list");
  for (const auto& [key, value] : document.items())
    if (key != "shapes" && key != "description") bad(source, "unknown key \"" + key + "\"");
  std::vector<ShapeEntry> entries;
  std::set<std::string> names;
  const auto& shapes = document.at("shapes");
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& entry = shapes[i];
    const bool named = entry.is_object() && entry.contains("name") && entry.at("name").is_string() &&
                       !entry.at("name").get<std::string>().empty();
    const std::string where = source + ": shapes[" + std::to_string(i) + "]" +
                              (named ? " (\"" + entry.at("name").get<std::string>() + "\")" : "");
    if (!named) bad(where, "needs a non-empty \"name\"");
    entries.push_back(parse_entry(entry, where));
    entries.back().name = entry.at("name").get<std::string>();
    if (!names.insert(entries.back().name).second) bad(where, "a second entry of this name");
  }
  return ShapeCatalog(std::move(entries));
}

ShapeCatalog load_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad(path, "cannot be read");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& error) {
    bad(path, std::string("not JSON: ") + error.what());
  }
  return parse_shapes(document, path);
}

std::string shapes_path() {
  if (const char* path = std::getenv("GPUBENCH_GEMM_SHAPES"); path && *path) return path;
  if (const auto found = find_config_file("gemm_shapes.json")) return *found;
  return config_search_path().front() + "/gemm_shapes.json";  // named in the message that it is missing
}

const ShapeCatalog& shape_catalog() {
  static const ShapeCatalog catalog = load_shapes(shapes_path());
  return catalog;
}

std::vector<std::int64_t> declared_values(const std::string& dimension, ShapeUse use) {
  try {
    std::vector<std::int64_t> values = shape_catalog().values(dimension, use);
    if (!values.empty()) return values;
  } catch (const UsageError&) {
  }
  return {1};
}

std::vector<std::int64_t> present(const std::vector<std::int64_t>& wanted, const std::vector<std::int64_t>& values) {
  std::vector<std::int64_t> out;
  for (std::int64_t v : wanted)
    if (contains(values, v)) out.push_back(v);
  return out;
}

}  // namespace gpubench::gemm
