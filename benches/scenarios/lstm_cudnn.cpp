#include "benches/scenarios/lstm_cudnn.h"

#include <cuda_fp16.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/system/library.h"

namespace gpubench::scenarios {
namespace {

// cuDNN's RNN API, in the same library as its graph API (libcudnn.so.9 serves both).
#define GPUBENCH_CUDNN_RNN_FUNCTIONS(X)                                                                          \
  X(cudnnSetStream) X(cudnnCreateRNNDescriptor) X(cudnnDestroyRNNDescriptor) X(cudnnSetRNNDescriptor_v8)        \
  X(cudnnCreateRNNDataDescriptor) X(cudnnDestroyRNNDataDescriptor) X(cudnnSetRNNDataDescriptor)                 \
  X(cudnnGetRNNTempSpaceSizes) X(cudnnGetRNNWeightSpaceSize) X(cudnnGetRNNWeightParams) X(cudnnRNNForward)      \
  X(cudnnRNNBackwardData_v8) X(cudnnRNNBackwardWeights_v8) X(cudnnCreateTensorDescriptor)                       \
  X(cudnnSetTensorNdDescriptor) X(cudnnGetTensorNdDescriptor) X(cudnnDestroyTensorDescriptor)                   \
  X(cudnnCreateDropoutDescriptor) X(cudnnDestroyDropoutDescriptor) X(cudnnSetDropoutDescriptor)
GPUBENCH_LIBRARY_TABLE(RnnApi, "cudnn", GPUBENCH_CUDNN_RNN_FUNCTIONS)

const RnnApi& api() { return RnnApi::get(); }

// A cuDNN descriptor destroyed with its owner.
template <class Handle, auto Destroy>
struct Owned {
  Handle value = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (value) (api().*Destroy)(value);
  }
};
using RnnDescriptor = Owned<cudnnRNNDescriptor_t, &RnnApi::cudnnDestroyRNNDescriptor>;
using DataDescriptor = Owned<cudnnRNNDataDescriptor_t, &RnnApi::cudnnDestroyRNNDataDescriptor>;
using TensorDescriptor = Owned<cudnnTensorDescriptor_t, &RnnApi::cudnnDestroyTensorDescriptor>;
using DropoutDescriptor = Owned<cudnnDropoutDescriptor_t, &RnnApi::cudnnDestroyDropoutDescriptor>;

// An array of the layer's element type in device memory, written and read as floats and doubles.
class Array {
 public:
  Array(std::size_t count, bool half) : count_(count), half_(half), buffer_(std::max<std::size_t>(count, 1) * (half ? 2 : 4)) {}
  void* at(std::size_t element) const { return static_cast<char*>(buffer_.get()) + element * (half_ ? 2 : 4); }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return buffer_.bytes(); }
  void upload(const std::vector<float>& values) {
    if (!half_) {
      GPUBENCH_CUDA(cudaMemcpy(buffer_.get(), values.data(), values.size() * 4, cudaMemcpyHostToDevice));
      return;
    }
    std::vector<__half> halves(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) halves[i] = __float2half(values[i]);
    GPUBENCH_CUDA(cudaMemcpy(buffer_.get(), halves.data(), halves.size() * 2, cudaMemcpyHostToDevice));
  }
  std::vector<double> download(std::size_t first, std::size_t count) const {
    std::vector<double> values(count);
    if (half_) {
      std::vector<__half> halves(count);
      GPUBENCH_CUDA(cudaMemcpy(halves.data(), at(first), count * 2, cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < count; ++i) values[i] = __half2float(halves[i]);
    } else {
      std::vector<float> floats(count);
      GPUBENCH_CUDA(cudaMemcpy(floats.data(), at(first), count * 4, cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < count; ++i) values[i] = floats[i];
    }
    return values;
  }

 private:
  std::size_t count_;
  bool half_;
  DeviceBuffer buffer_;
};

std::vector<float> uniform(std::size_t count, double bound, std::mt19937_64& generator) {
  std::uniform_real_distribution<float> value(static_cast<float>(-bound), static_cast<float>(bound));
  std::vector<float> values(count);
  for (float& v : values) v = value(generator);
  return values;
}

}  // namespace

LstmType parse_lstm_type(const std::string& name) {
  if (name == "fp32") return LstmType::kFp32;
  if (name == "tf32") return LstmType::kTf32;
  if (name == "fp16") return LstmType::kFp16;
  throw std::invalid_argument("LSTM type must be fp32, tf32 or fp16, not '" + name + "'");
}

struct CudnnLstm::Impl {
  Impl(cudnnHandle_t handle, const LstmShape& shape, bool half, bool training)
      : handle(handle), shape(shape), half(half), training(training),
        x(std::size_t(shape.seq) * shape.batch * shape.input, half),
        dx(x.count(), half),
        y(std::size_t(shape.seq) * shape.batch * shape.hidden, half),
        dy(y.count(), half),
        h(std::size_t(shape.seq + 1) * shape.batch * shape.hidden, half),
        c(h.count(), half),
        dh(h.count(), half),
        dc(h.count(), half),
        lengths_step(shape.batch * sizeof(std::int32_t)),
        lengths_sequence(shape.batch * sizeof(std::int32_t)) {}

  std::size_t state(int t) const { return std::size_t(t) * shape.batch * shape.hidden; }
  cudnnForwardMode_t mode() const { return training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE; }
  void* reserve_of_step(int t) const {
    return training ? static_cast<char*>(reserve_steps.get()) + std::size_t(t) * reserve_stride_bytes : nullptr;
  }

  cudnnHandle_t handle;
  LstmShape shape;
  bool half, training;
  RnnDescriptor rnn;
  DropoutDescriptor dropout;
  TensorDescriptor state_desc;
  DataDescriptor x_step, y_step, x_sequence, y_sequence;
  Array x, dx, y, dy, h, c, dh, dc;  // h, c, dh, dc: (T + 1) x B x H, the initial state first
  DeviceBuffer lengths_step, lengths_sequence;
  std::unique_ptr<Array> weights, dweights;
  std::size_t weight_bytes = 0, reserve_step_bytes = 0, reserve_stride_bytes = 0, reserve_sequence_bytes = 0;
  DeviceBuffer work, reserve_steps, reserve_sequence;
  std::size_t work_bytes = 0;
  // Element offsets in the weight space: matrices and biases of cuDNN's linear layers 0-7.
  std::size_t matrix_offset[8] = {}, bias_offset[8] = {};
};

namespace {

void describe_data(cudnnRNNDataDescriptor_t desc, cudnnDataType_t type, int seq, int batch, int vector,
                   DeviceBuffer& device_lengths) {
  const std::vector<std::int32_t> lengths(batch, seq);
  GPUBENCH_CUDNN(api().cudnnSetRNNDataDescriptor(desc, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seq, batch,
                                                 vector, lengths.data(), nullptr));
  GPUBENCH_CUDA(cudaMemcpy(device_lengths.get(), lengths.data(), lengths.size() * sizeof(std::int32_t),
                           cudaMemcpyHostToDevice));
}

// Where cuDNN keeps linear layer `id`'s matrix and bias in the weight space, checked against
// the shape the reference assumes (rows a hidden unit each).
void locate_weights(CudnnLstm::Impl& m) {
  TensorDescriptor matrix, bias;
  GPUBENCH_CUDNN(api().cudnnCreateTensorDescriptor(&matrix.value));
  GPUBENCH_CUDNN(api().cudnnCreateTensorDescriptor(&bias.value));
  char* base = static_cast<char*>(m.weights->at(0));
  const std::size_t element = m.half ? 2 : 4;
  for (int id = 0; id < 8; ++id) {
    void *matrix_at = nullptr, *bias_at = nullptr;
    GPUBENCH_CUDNN(api().cudnnGetRNNWeightParams(m.handle, m.rnn.value, 0, m.weight_bytes, base, id, matrix.value,
                                                 &matrix_at, bias.value, &bias_at));
    cudnnDataType_t type;
    int dims = 0, size[3] = {}, stride[3] = {};
    GPUBENCH_CUDNN(api().cudnnGetTensorNdDescriptor(matrix.value, 3, &type, &dims, size, stride));
    const int columns = id < 4 ? m.shape.input : m.shape.hidden;
    std::vector<int> extents, steps;  // the dimensions that are not 1, outermost first
    for (int d = 0; d < dims && d < 3; ++d)
      if (size[d] != 1) extents.push_back(size[d]), steps.push_back(stride[d]);
    if (extents != std::vector<int>{m.shape.hidden, columns} || steps != std::vector<int>{columns, 1})
      throw std::runtime_error("cuDNN laid out LSTM matrix " + std::to_string(id) + " otherwise than " +
                               std::to_string(m.shape.hidden) + " rows of " + std::to_string(columns) +
                               " (the reference's row-major [hidden, " + (id < 4 ? "input" : "hidden") + "])");
    m.matrix_offset[id] = static_cast<std::size_t>(static_cast<char*>(matrix_at) - base) / element;
    m.bias_offset[id] = static_cast<std::size_t>(static_cast<char*>(bias_at) - base) / element;
  }
}

}  // namespace

CudnnLstm::CudnnLstm(cudnnHandle_t handle, const LstmShape& shape, LstmType type, bool training, std::uint64_t seed,
                     cudaStream_t stream)
    : impl_(std::make_unique<Impl>(handle, shape, type == LstmType::kFp16, training)) {
  Impl& m = *impl_;
  const cudnnDataType_t data = m.half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  const cudnnMathType_t math = type == LstmType::kFp32   ? CUDNN_FMA_MATH
                               : type == LstmType::kTf32 ? CUDNN_DEFAULT_MATH
                                                         : CUDNN_TENSOR_OP_MATH;
  GPUBENCH_CUDNN(api().cudnnSetStream(handle, stream));
  GPUBENCH_CUDNN(api().cudnnCreateDropoutDescriptor(&m.dropout.value));
  GPUBENCH_CUDNN(api().cudnnSetDropoutDescriptor(m.dropout.value, handle, 0.0f, nullptr, 0, seed));
  GPUBENCH_CUDNN(api().cudnnCreateRNNDescriptor(&m.rnn.value));
  GPUBENCH_CUDNN(api().cudnnSetRNNDescriptor_v8(m.rnn.value, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                                CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, data, CUDNN_DATA_FLOAT, math,
                                                shape.input, shape.hidden, shape.hidden, 1, m.dropout.value,
                                                CUDNN_RNN_PADDED_IO_DISABLED));
  GPUBENCH_CUDNN(api().cudnnCreateTensorDescriptor(&m.state_desc.value));
  const int dims[3] = {1, shape.batch, shape.hidden}, strides[3] = {shape.batch * shape.hidden, shape.hidden, 1};
  GPUBENCH_CUDNN(api().cudnnSetTensorNdDescriptor(m.state_desc.value, data, 3, dims, strides));
  for (auto* d : {&m.x_step, &m.y_step, &m.x_sequence, &m.y_sequence})
    GPUBENCH_CUDNN(api().cudnnCreateRNNDataDescriptor(&d->value));
  describe_data(m.x_step.value, data, 1, shape.batch, shape.input, m.lengths_step);
  describe_data(m.y_step.value, data, 1, shape.batch, shape.hidden, m.lengths_step);
  describe_data(m.x_sequence.value, data, shape.seq, shape.batch, shape.input, m.lengths_sequence);
  describe_data(m.y_sequence.value, data, shape.seq, shape.batch, shape.hidden, m.lengths_sequence);

  std::size_t work_step = 0, work_sequence = 0;
  GPUBENCH_CUDNN(api().cudnnGetRNNTempSpaceSizes(handle, m.rnn.value, m.mode(), m.x_step.value, &work_step,
                                                 &m.reserve_step_bytes));
  GPUBENCH_CUDNN(api().cudnnGetRNNTempSpaceSizes(handle, m.rnn.value, m.mode(), m.x_sequence.value, &work_sequence,
                                                 &m.reserve_sequence_bytes));
  m.work_bytes = std::max(work_step, work_sequence);
  // Each step's slice of the stepped reserve space starts on a 256-byte boundary, as cudaMalloc's do.
  m.reserve_stride_bytes = (m.reserve_step_bytes + 255) / 256 * 256;
  m.work = DeviceBuffer(std::max<std::size_t>(m.work_bytes, 1));
  if (training) {
    m.reserve_steps = DeviceBuffer(std::max<std::size_t>(m.reserve_stride_bytes * shape.seq, 1));
    m.reserve_sequence = DeviceBuffer(std::max<std::size_t>(m.reserve_sequence_bytes, 1));
  }
  GPUBENCH_CUDNN(api().cudnnGetRNNWeightSpaceSize(handle, m.rnn.value, &m.weight_bytes));
  m.weights = std::make_unique<Array>(m.weight_bytes / (m.half ? 2 : 4), m.half);
  m.dweights = std::make_unique<Array>(m.weights->count(), m.half);
  locate_weights(m);

  // PyTorch's initialisation bound 1/sqrt(H); inputs and states in (-1, 1): the gates' inputs
  // spread about 0.5, so no gate saturates and every output depends on every input.
  std::mt19937_64 generator(seed);
  m.weights->upload(uniform(m.weights->count(), 1 / std::sqrt(double(shape.hidden)), generator));
  m.x.upload(uniform(m.x.count(), 1, generator));
  m.dy.upload(uniform(m.dy.count(), 1, generator));
  m.h.upload(uniform(m.h.count(), 1, generator));
  m.c.upload(uniform(m.c.count(), 1, generator));
  m.dh.upload(uniform(m.dh.count(), 1, generator));
  m.dc.upload(uniform(m.dc.count(), 1, generator));
}

CudnnLstm::~CudnnLstm() = default;

void CudnnLstm::forward(cudaStream_t stream, bool by_step) const {
  const Impl& m = *impl_;
  GPUBENCH_CUDNN(api().cudnnSetStream(m.handle, stream));
  const int T = m.shape.seq;
  const std::size_t x_step = std::size_t(m.shape.batch) * m.shape.input, y_step = m.state(1);
  if (!by_step) {
    GPUBENCH_CUDNN(api().cudnnRNNForward(
        m.handle, m.rnn.value, m.mode(), m.lengths_sequence.as<std::int32_t>(), m.x_sequence.value, m.x.at(0),
        m.y_sequence.value, m.y.at(0), m.state_desc.value, m.h.at(0), m.h.at(m.state(T)), m.state_desc.value,
        m.c.at(0), m.c.at(m.state(T)), m.weight_bytes, m.weights->at(0), m.work_bytes, m.work.get(),
        m.training ? m.reserve_sequence_bytes : 0, m.training ? m.reserve_sequence.get() : nullptr));
    return;
  }
  for (int t = 0; t < T; ++t)
    GPUBENCH_CUDNN(api().cudnnRNNForward(
        m.handle, m.rnn.value, m.mode(), m.lengths_step.as<std::int32_t>(), m.x_step.value, m.x.at(t * x_step),
        m.y_step.value, m.y.at(t * y_step), m.state_desc.value, m.h.at(m.state(t)), m.h.at(m.state(t + 1)),
        m.state_desc.value, m.c.at(m.state(t)), m.c.at(m.state(t + 1)), m.weight_bytes, m.weights->at(0),
        m.work_bytes, m.work.get(), m.training ? m.reserve_step_bytes : 0, m.reserve_of_step(t)));
}

void CudnnLstm::backward(cudaStream_t stream, bool by_step) const {
  const Impl& m = *impl_;
  if (!m.training) throw std::logic_error("CudnnLstm::backward of a layer made for inference");
  GPUBENCH_CUDNN(api().cudnnSetStream(m.handle, stream));
  GPUBENCH_CUDA(cudaMemsetAsync(m.dweights->at(0), 0, m.dweights->bytes(), stream));
  const int T = m.shape.seq;
  const std::size_t x_step = std::size_t(m.shape.batch) * m.shape.input, y_step = m.state(1);
  // One pass from step `first` over `steps` steps: the state gradients flow from slot first +
  // steps (the later step's, or dhy/dcy) to slot first.
  const auto pass = [&](int first, int steps, const std::int32_t* lengths, cudnnRNNDataDescriptor_t x_desc,
                        cudnnRNNDataDescriptor_t y_desc, std::size_t reserve_bytes, void* reserve) {
    GPUBENCH_CUDNN(api().cudnnRNNBackwardData_v8(
        m.handle, m.rnn.value, lengths, y_desc, m.y.at(first * y_step), m.dy.at(first * y_step), x_desc,
        m.dx.at(first * x_step), m.state_desc.value, m.h.at(m.state(first)), m.dh.at(m.state(first + steps)),
        m.dh.at(m.state(first)), m.state_desc.value, m.c.at(m.state(first)), m.dc.at(m.state(first + steps)),
        m.dc.at(m.state(first)), m.weight_bytes, m.weights->at(0), m.work_bytes, m.work.get(), reserve_bytes, reserve));
    GPUBENCH_CUDNN(api().cudnnRNNBackwardWeights_v8(
        m.handle, m.rnn.value, CUDNN_WGRAD_MODE_ADD, lengths, x_desc, m.x.at(first * x_step), m.state_desc.value,
        m.h.at(m.state(first)), y_desc, m.y.at(first * y_step), m.weight_bytes, m.dweights->at(0), m.work_bytes,
        m.work.get(), reserve_bytes, reserve));
  };
  if (!by_step) {
    pass(0, T, m.lengths_sequence.as<std::int32_t>(), m.x_sequence.value, m.y_sequence.value, m.reserve_sequence_bytes,
         m.reserve_sequence.get());
    return;
  }
  for (int t = T; t-- > 0;)
    pass(t, 1, m.lengths_step.as<std::int32_t>(), m.x_step.value, m.y_step.value, m.reserve_step_bytes,
         m.reserve_of_step(t));
}

namespace {

LstmWeights weights_of(const CudnnLstm::Impl& m, const Array& space) {
  const std::vector<double> all = space.download(0, space.count());
  const std::size_t H = m.shape.hidden, I = m.shape.input;
  LstmWeights p;
  const auto slice = [&](std::size_t offset, std::size_t count) {
    return std::vector<double>(all.begin() + offset, all.begin() + offset + count);
  };
  for (int g = 0; g < 4; ++g) {
    p.w[g] = slice(m.matrix_offset[g], H * I);
    p.r[g] = slice(m.matrix_offset[g + 4], H * H);
    p.bw[g] = slice(m.bias_offset[g], H);
    p.br[g] = slice(m.bias_offset[g + 4], H);
  }
  return p;
}

}  // namespace

std::vector<double> CudnnLstm::x() const { return impl_->x.download(0, impl_->x.count()); }
std::vector<double> CudnnLstm::y() const { return impl_->y.download(0, impl_->y.count()); }
std::vector<double> CudnnLstm::dy() const { return impl_->dy.download(0, impl_->dy.count()); }
std::vector<double> CudnnLstm::dx() const { return impl_->dx.download(0, impl_->dx.count()); }
std::vector<double> CudnnLstm::h0() const { return impl_->h.download(0, impl_->state(1)); }
std::vector<double> CudnnLstm::c0() const { return impl_->c.download(0, impl_->state(1)); }
std::vector<double> CudnnLstm::dhx() const { return impl_->dh.download(0, impl_->state(1)); }
std::vector<double> CudnnLstm::dcx() const { return impl_->dc.download(0, impl_->state(1)); }
std::vector<double> CudnnLstm::hy() const { return impl_->h.download(impl_->state(impl_->shape.seq), impl_->state(1)); }
std::vector<double> CudnnLstm::cy() const { return impl_->c.download(impl_->state(impl_->shape.seq), impl_->state(1)); }
std::vector<double> CudnnLstm::dhy() const { return impl_->dh.download(impl_->state(impl_->shape.seq), impl_->state(1)); }
std::vector<double> CudnnLstm::dcy() const { return impl_->dc.download(impl_->state(impl_->shape.seq), impl_->state(1)); }
LstmWeights CudnnLstm::weights() const { return weights_of(*impl_, *impl_->weights); }
LstmWeights CudnnLstm::dweights() const { return weights_of(*impl_, *impl_->dweights); }

std::size_t CudnnLstm::device_bytes() const {
  const Impl& m = *impl_;
  std::size_t bytes = m.work.bytes() + m.reserve_steps.bytes() + m.reserve_sequence.bytes() + m.weights->bytes() +
                      m.dweights->bytes();
  for (const Array* a : {&m.x, &m.dx, &m.y, &m.dy, &m.h, &m.c, &m.dh, &m.dc}) bytes += a->bytes();
  return bytes;
}

}  // namespace gpubench::scenarios
