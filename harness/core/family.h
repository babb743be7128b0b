#pragma once
// Benchmark families: a name, a description, typed parameter axes and one run function.
// A family is declared once at namespace scope in its bench file:
//
//   static auto& stream = gpubench::family("memory/stream")
//       .describe("...")
//       .axis_str("op", {"copy", "triad"})
//       .axis_pow2("array_bytes", 20, 32, 2, {1 << 28})   // the last list: the values under --quick
//       .per_device()
//       .run([](gpubench::State& s) { ... });
//
// The harness expands the axes into benchmark instances named
// suite/family/axis:value/... (axes in declaration order), which is what results,
// filters and the comparator key on.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/context.h"

namespace gpubench {

class State;

// What axes computed at expansion see: the run's machine, its --config document's `axes`, the
// selected GPUs and the values of the axes declared before it, as the run takes them (a
// --config's choice or --quick's applied). The parent and every worker expand alike, so a
// computed axis must give the same values from the same inputs.
struct ExpandContext {
  const Context& context;
  const nlohmann::json& config;
  const std::vector<int>& devices;
  const std::map<std::string, std::vector<std::string>>& earlier_axes;
};

struct Axis {
  enum class Kind { kInt, kFloat, kString, kGpu };
  using Compute = std::function<std::vector<std::string>(const ExpandContext&)>;
  std::string name;
  Kind kind = Kind::kString;
  std::vector<std::string> values;        // every value as it appears in names
  std::vector<std::string> quick_values;  // subset used under --quick; empty means all
  Compute compute;                        // set: the values are computed at expansion
  std::vector<std::string> by_config;     // string values --config may choose that the sweep leaves out
  Compute compute_by_config;              // the same for a computed axis, computed at expansion
};

// One expanded point of a family: its axis values in declaration order.
struct Params {
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<Axis::Kind> kinds;

  bool has(const std::string& axis) const;
  const std::string& str(const std::string& axis) const;
  std::int64_t integer(const std::string& axis) const;
  double real(const std::string& axis) const;
  int gpu(const std::string& axis) const;  // "gpu3" -> 3
  nlohmann::json to_json() const;          // ints and floats as numbers, strings as strings
};

struct Context;

// The context in which families are expanded into instances.
struct ExpandOptions {
  std::vector<int> devices{0};  // CUDA device ordinals selected with --devices
  // The machine's context, for requirements that depend on it (needs_cc) and computed axes;
  // null: requirements not checked, computed axes see a machine without GPUs.
  const Context* context = nullptr;
  bool quick = false;
  // Per-family axis overrides from --config: family name -> axis name -> values.
  nlohmann::json axis_overrides = nlohmann::json::object();
  nlohmann::json config = nlohmann::json::object();  // the --config document
};

// "a, b, c": an axis's values as `list` and messages show them.
std::string join_values(const std::vector<std::string>& values);

// How a float axis value is written in names: the shortest form that reads back exactly.
std::string float_axis_value(double value);

struct Instance;

// Per-family limits that override the run's (a tuned GEMM sweep or an NCCL communicator
// set-up needs longer than a copy); unset fields take the run's value.
struct FamilySettings {
  std::optional<double> timeout_s;   // hard limit per benchmark, enforced by the supervisor
  std::optional<double> max_time_s;  // soft limit on sampling per benchmark
  std::optional<int> min_samples;
  // A power-capped GPU runs the first ~100 ms of heavy load at its boost clock, then lower, and
  // dithers around its power limit (an H200 BF16 GEMM: 1980 MHz, then 1500-1700). Where a
  // family's figures depend on it, its samples start after this much load (and so does tune's
  // ranking), and they span at least min_time_s, a part of the dither rather than one instant.
  std::optional<double> settle_s;
  std::optional<double> min_time_s;
  // The dither is slower than a long call's samples: over min_time_s they can catch one phase of
  // it. Then the noise target stops the sampling only once the medians of its two halves are
  // within max_halves_apart_pct, or when steady_window_s (about the power average's period) of
  // sampling has passed.
  std::optional<double> max_halves_apart_pct;
  std::optional<double> steady_window_s;
  // Idle time before a measurement that follows other load of the same benchmark (tune's
  // ranking): the power average the GPU's clock follows then starts about where it starts for a
  // benchmark measured without ranking, after the gap between benchmarks.
  std::optional<double> rest_s;
  // Operations shorter than batch_below_s are timed in back-to-back batches of about
  // batch_target_s (RunSettings' where unset). A power-capped GPU clocks higher the longer it
  // idles between samples, so a family whose figure is the rate held under load batches longer.
  std::optional<double> batch_below_s;
  std::optional<double> batch_target_s;
};

// `base` with the settle, minimum sampling time and rest of a family that loads a power-capped
// GPU to its limit (GEMM, convolution), where `base` leaves them unset: its figure is the rate
// the GPU holds under load.
FamilySettings power_limited(FamilySettings base);
// What `settings` (from power_limited) do to the timing, for family descriptions.
std::string power_limited_description(const FamilySettings& settings);

class Family {
 public:
  explicit Family(std::string full_name);

  Family& describe(std::string text);
  // Typed axes; `quick`, when given, is what --quick runs instead (else every value); it may
  // hold values outside the sweep (a shorter duration). `by_config`: string values a --config
  // may choose beside the sweep's (a variant the description offers but the sweep leaves out).
  Family& axis_str(std::string name, std::vector<std::string> values, std::vector<std::string> quick = {},
                   std::vector<std::string> by_config = {});
  Family& axis_int(std::string name, std::vector<std::int64_t> values, std::vector<std::int64_t> quick = {});
  Family& axis_float(std::string name, std::vector<double> values, std::vector<double> quick = {});
  // 2^lo, 2^(lo+step), ..., up to 2^hi inclusive.
  Family& axis_pow2(std::string name, int lo, int hi, int step = 1, std::vector<std::int64_t> quick = {});
  // One value per selected GPU, written gpu0, gpu1, ...
  Family& axis_gpus(std::string name);
  // Values computed when the family is expanded, from the machine or the config (an L2-sized
  // buffer, sizes from a layer file); `kind` says how they are written to the result's params.
  // Under --quick, the values of `quick` that were computed, else the first computed value:
  // what a file declares may lack the preferred one, and the family still runs once.
  // `by_config`: values computed alike that only --config may choose (the sweep leaves them out).
  Family& axis_computed(std::string name, Axis::Compute compute, Axis::Kind kind = Axis::Kind::kString,
                        std::vector<std::string> quick = {}, Axis::Compute by_config = {});
  // Run once per selected GPU: adds a trailing `gpu` axis and makes State::device() that GPU.
  Family& per_device();
  // Drop combinations for which `keep` is false (e.g. a peer pair with src == dst).
  Family& where(std::function<bool(const Params&)> keep);
  // Fewer selected GPUs than this: the family is reported once as skipped, with the reason.
  Family& needs_gpus(int count);
  // Every selected GPU must have at least this compute capability (FP8 tensor cores: 8.9).
  Family& needs_cc(int major, int minor);
  // A run-time library (harness/system/library.h: "cublasLt", "cudnn", "nccl") must load;
  // where it does not, every instance is skipped with the loader's reason.
  Family& needs_library(std::string name);
  Family& settings(FamilySettings settings);
  // Runs without a GPU (the harness self-tests).
  Family& cpu_only();
  // Left out of `--suite all` and of `list` unless asked for by suite name.
  Family& hidden();
  // The measurement is host-sensitive (host clock around driver calls, launch rates): the
  // runner reads telemetry only before and after each benchmark, with no polling thread
  // making NVML calls (driver ioctls, CPU time) while it runs.
  Family& quiet_host();
  // How long one of its benchmarks runs, where the family fixes it (a sustained load of a set
  // length): the run's progress adds it to the time left instead of the mean of the others.
  Family& known_length(std::function<double(const Params&)> seconds);
  Family& run(std::function<void(State&)> body);

  const std::string& name() const { return name_; }
  std::string suite() const;
  const std::string& description() const { return description_; }
  const std::vector<Axis>& axes() const { return axes_; }
  int min_gpus() const { return min_gpus_; }
  bool needs_gpu() const { return needs_gpu_; }
  bool is_hidden() const { return hidden_; }
  bool is_quiet_host() const { return quiet_host_; }
  std::optional<double> known_length_s(const Params& params) const;
  bool is_per_device() const { return per_device_; }
  const FamilySettings& settings() const { return settings_; }
  // Why this family cannot run under `options` (too few GPUs, compute capability, a library
  // that does not load), or empty.
  std::string unmet_requirement(const ExpandOptions& options) const;
  const std::function<void(State&)>& body() const { return body_; }

  // Axes with GPU and computed axes resolved and overrides / --quick applied; an override of a
  // computed string axis with a value it does not compute is UsageError{kExitBadInput}.
  std::vector<Axis> resolved_axes(const ExpandOptions& options) const;
  std::vector<Instance> expand(const ExpandOptions& options) const;

 private:
  Family& add_axis(Axis axis);

  std::string name_;
  std::string description_;
  std::vector<Axis> axes_;
  std::vector<std::function<bool(const Params&)>> keep_;
  std::function<void(State&)> body_;
  int min_gpus_ = 1;
  int min_cc_major_ = 0, min_cc_minor_ = 0;
  std::vector<std::string> libraries_;
  FamilySettings settings_;
  bool needs_gpu_ = true;
  bool hidden_ = false;
  bool quiet_host_ = false;
  std::function<double(const Params&)> known_length_;
  bool per_device_ = false;
};

struct Instance {
  const Family* family = nullptr;
  std::string name;
  Params params;
  int device = 0;            // CUDA device for State::device()
  std::string skip_reason;   // non-empty: reported as skipped without running
};

// The process-wide registry. family() registers on first use of a name.
Family& family(const std::string& full_name);
const std::vector<std::unique_ptr<Family>>& registered_families();
const Family* find_family(const std::string& full_name);

std::string instance_name(const std::string& family_name, const Params& params);
// Suites users may ask for; `all` means every non-hidden suite.
std::vector<std::string> known_suites();

}  // namespace gpubench
