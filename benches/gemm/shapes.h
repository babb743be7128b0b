#pragma once
// The user-editable list of GEMM shapes (configs/gemm_shapes.json): square sizes and the GEMMs
// of common transformer layers. It is read when families are expanded, so a shape is added
// without rebuilding; GPUBENCH_GEMM_SHAPES names another file (shapes_path). Format:
//
//   { "description": "...",
//     "shapes": [ { "name": "llama3_8b.qkv", "m": [1, 128, 2048], "n": 6144, "k": 4096,
//                   "batch": 1, "l2_modes": false, "only": { "type": ["bf16"], "layout": ["tn"] } },
//                 { "name": "square", "square": [1024, 4096] } ] }
//
// m, n and k are a positive integer or a list of them (every combination is a shape); "square"
// lists sizes with m = n = k. "batch" > 1 makes strided-batched GEMMs (gemm/strided).
// "l2_modes" adds the shape to gemm/cache, which measures it with hot and with cold L2. "only"
// restricts the type, layout and algo axes for this entry (absent: every value runs).
// A bad entry is a UsageError (exit 2) naming the file and the entry.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benches/gemm/gemm_types.h"

namespace gpubench::gemm {

struct ShapeEntry {
  std::string name;
  std::vector<std::int64_t> m, n, k;
  std::int64_t batch = 1;
  bool square = false;  // from "square": m = n = k, not every combination
  bool l2_modes = false;
  std::map<std::string, std::vector<std::string>> only;  // axis -> the values this entry runs
};

// Which family a shape feeds: gemm/matmul (batch 1), gemm/strided (batch > 1), gemm/cache.
enum class ShapeUse { kMatmul, kStrided, kCache };

class ShapeCatalog {
 public:
  ShapeCatalog() = default;
  explicit ShapeCatalog(std::vector<ShapeEntry> entries) : entries_(std::move(entries)) {}
  const std::vector<ShapeEntry>& entries() const { return entries_; }
  // The distinct values of "m", "n", "k" or "batch" over the entries for `use`, ascending.
  std::vector<std::int64_t> values(const std::string& dimension, ShapeUse use) const;
  // Whether some entry for `use` lists this shape and lets its `axes` (type, layout, algo) run.
  bool allows(const Shape& shape, const std::map<std::string, std::string>& axes, ShapeUse use) const;

 private:
  std::vector<ShapeEntry> entries_;
};

// Parses and checks a shape document; `source` (the file name) prefixes every error.
ShapeCatalog parse_shapes(const nlohmann::json& document, const std::string& source);
ShapeCatalog load_shapes(const std::string& path);
// GPUBENCH_GEMM_SHAPES when set, else gemm_shapes.json on the search path of shipped configs
// (harness/model/config_files.h: GPUBENCH_CONFIG_DIR, beside the executable, the source tree).
std::string shapes_path();
// The catalog of shapes_path(), loaded once per process.
const ShapeCatalog& shape_catalog();
// An axis's values where the family is declared: the catalog's, or {1} where the file does not
// load, so that expansion reaches listed_shape(), which loads it again and reports why (exit 2).
std::vector<std::int64_t> declared_values(const std::string& dimension, ShapeUse use);
// The values of `wanted` that `values` has: --quick values that the shape file lists.
std::vector<std::int64_t> present(const std::vector<std::int64_t>& wanted, const std::vector<std::int64_t>& values);

}  // namespace gpubench::gemm
