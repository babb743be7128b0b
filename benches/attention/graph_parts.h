#pragma once
// The building blocks of the attention suite's cuDNN operation graphs (forward and backward):
// tensors in the B, H, S, D layout, the matmul, pointwise, reduction and reshape operations, the
// scaled and causally masked scores both passes start from, and the by-value scalars (scale,
// -inf) their variant packs bind. Every descriptor is kept alive with the graph it belongs to.
#include <cudnn.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "benches/attention/attention_shape.h"
#include "harness/core/cudnn/engine_plans.h"

namespace gpubench::attention {

// Unique ids of the tensors the variant packs bind; virtual tensors count up from kFirstVirtual.
enum TensorId : std::int64_t {
  kQ = 1, kK, kV, kO, kScale, kNegativeInfinity, kStats,
  kOutputGradient, kOne, kSoftmaxSum, kQueryGradientAccumulator, kQueryGradient, kKeyGradient, kValueGradient,
};
constexpr std::int64_t kFirstVirtual = 100;

struct TensorSpec {
  std::vector<std::int64_t> dims, strides;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  bool is_virtual = true, by_value = false;
};

// The 16-bit type of Q, K, V, O and the gradients.
cudnnDataType_t io_type(Element element);
// Packed strides of `dims`, last dimension fastest.
std::vector<std::int64_t> packed(const std::vector<std::int64_t>& dims);

struct PointwiseInputs {
  const cudnn::BackendDescriptor* x = nullptr;
  const cudnn::BackendDescriptor* b = nullptr;  // second operand of a binary mode
  const cudnn::BackendDescriptor* t = nullptr;  // BINARY_SELECT's condition
  std::int64_t axis = -1;                       // GEN_INDEX's dimension
  // The mode's math type: FP32, but BOOLEAN for the causal comparison.
  cudnnDataType_t math = CUDNN_DATA_FLOAT;
};

class GraphParts {
 public:
  // `cudnn_version`: the loaded library's (CudnnHandle::version_number()), which decides how
  // a masked score is written.
  GraphParts(const AttentionShape& shape, std::size_t cudnn_version);
  GraphParts(const GraphParts&) = delete;
  GraphParts& operator=(const GraphParts&) = delete;

  using Tensor = const cudnn::BackendDescriptor*;
  Tensor tensor(std::int64_t id, const TensorSpec& spec);
  Tensor io_tensor(std::int64_t id);              // B, H, S, D in the input type, packed
  Tensor transposed_io_tensor(std::int64_t id);   // the same storage read as B, H, D, S
  Tensor fp32_tensor(std::int64_t id);            // B, H, S, D in FP32, packed (not virtual)
  Tensor row_tensor(std::int64_t id);             // B, H, S, 1 in FP32 (not virtual)
  Tensor scalar(std::int64_t id);                 // one FP32 value passed by value, made once per id
  Tensor scores(cudnnDataType_t type = CUDNN_DATA_FLOAT);  // virtual B, H, S, S
  Tensor transposed_scores(cudnnDataType_t type);          // virtual B, H, S, S with the last two swapped
  Tensor per_row();                                        // virtual B, H, S, 1 in FP32
  Tensor per_element(cudnnDataType_t type = CUDNN_DATA_FLOAT);  // virtual B, H, S, D

  void matmul(Tensor a, Tensor b, Tensor c);
  void pointwise(cudnnPointwiseMode_t mode, const PointwiseInputs& in, Tensor y);
  void reduction(cudnnReduceTensorOp_t reduce, Tensor x, Tensor y);
  void reshape(Tensor x, Tensor y);
  // scale · Q·Kᵀ, and when causal every j > i set to -inf: the logits both passes start from.
  Tensor masked_logits(Tensor q, Tensor k_transposed);
  // The whole forward as cuDNN's one SDPA operation (cuDNN 9.13.1 and later): Q, K, V and O as
  // stored, the scale by value, no mask and no statistics.
  void sdpa_operation(Tensor q, Tensor k, Tensor v, Tensor o, Tensor scale);

  // The finalized operation graph of every operation added.
  cudnn::BackendDescriptor graph(cudnnHandle_t handle) const;
  // Appends the by-value scalars masked_logits() reads (scale, and -inf when causal) to a
  // variant pack's ids and pointers.
  void bind_scalars(std::vector<std::int64_t>& ids, std::vector<void*>& pointers) const;

 private:
  Tensor keep(cudnn::BackendDescriptor descriptor);
  void add(cudnn::BackendDescriptor operation);

  AttentionShape shape_;
  // The variant pack points at these.
  float scale_ = 1.0f, negative_infinity_ = 0.0f;
  std::int64_t next_virtual_ = kFirstVirtual;
  std::vector<std::unique_ptr<cudnn::BackendDescriptor>> parts_;  // tensors and operations
  std::vector<const cudnn::BackendDescriptor*> operations_;
  std::map<std::int64_t, Tensor> scalars_;
};

}  // namespace gpubench::attention
