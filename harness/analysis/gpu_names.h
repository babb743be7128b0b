#pragma once
// Benchmark names with GPU placeholders, so that one baseline serves nodes of any GPU count:
// a name component "gpu:*", "src:*", "dst:*" or "peer:*" stands for every GPU of the node (one
// placeholder) or every pair of distinct GPUs (two, in the order they appear in the name).
#include <string>
#include <vector>

namespace gpubench {

// A name's components: "memory/stream/op:triad" -> {"memory", "stream", "op:triad"}.
std::vector<std::string> name_components(const std::string& name);

// The axes whose value names a GPU ("gpu:gpu3", "src:gpu0", "dst:gpu1", "peer:gpu2").
bool is_gpu_axis(const std::string& axis);

// How many placeholder components the name has; -1 when it has glob characters anywhere else.
int gpu_placeholders(const std::string& name);

// The concrete names a placeholder name stands for on a node with these GPU indices: each
// GPU, each ordered pair of distinct GPUs, or (unordered_pairs) each pair with the first index
// lower, as for a figure that measures both directions at once. A name without placeholders
// stands for itself.
std::vector<std::string> expand_gpu_name(const std::string& name, const std::vector<int>& gpus,
                                         bool unordered_pairs);

// The placeholder form of a concrete name, and the GPU indices it replaced, in name order:
// "memory/stream/.../gpu:gpu5" -> "memory/stream/.../gpu:*", {5}.
std::string generalise_gpu_name(const std::string& name, std::vector<int>* gpus);

}  // namespace gpubench
