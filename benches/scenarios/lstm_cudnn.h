#pragma once
// One LSTM layer through cuDNN's RNN API (loaded at run time), with its inputs, states and
// gradients in device memory, driven either one time step per call, as a framework's cell loop
// or a decoder does, or the whole sequence in one call.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benches/scenarios/lstm_reference.h"

namespace gpubench::scenarios {

// fp32: FP32 data and FMA math; tf32: FP32 data, tensor cores allowed (cuDNN's default math,
// as torch's allow_tf32); fp16: FP16 data, tensor cores, FP32 accumulation.
enum class LstmType { kFp32, kTf32, kFp16 };
LstmType parse_lstm_type(const std::string& name);

class CudnnLstm {
 public:
  // Inputs, the initial state, the output gradients and the weights random from `seed`, of
  // magnitudes that keep the gates away from saturation; `training` keeps the reserve space the
  // backward pass reads, for stepped and whole-sequence passes alike.
  CudnnLstm(cudnnHandle_t handle, const LstmShape& shape, LstmType type, bool training, std::uint64_t seed,
            cudaStream_t stream);
  ~CudnnLstm();
  CudnnLstm(const CudnnLstm&) = delete;
  CudnnLstm& operator=(const CudnnLstm&) = delete;

  // Enqueued on `stream` (the handle follows it). `by_step`: one cuDNN call per time step, the
  // state of step t read from where step t - 1 wrote it; else one call over the sequence.
  void forward(cudaStream_t stream, bool by_step) const;
  // The weight gradients zeroed, then back through time: after a training forward of the same
  // kind, whose reserve space it reads.
  void backward(cudaStream_t stream, bool by_step) const;

  // Device contents, as doubles (synchronous).
  std::vector<double> x() const;
  std::vector<double> y() const;
  std::vector<double> h0() const;
  std::vector<double> c0() const;
  std::vector<double> hy() const;
  std::vector<double> cy() const;
  std::vector<double> dy() const;
  std::vector<double> dhy() const;
  std::vector<double> dcy() const;
  std::vector<double> dx() const;
  std::vector<double> dhx() const;
  std::vector<double> dcx() const;
  LstmWeights weights() const;
  LstmWeights dweights() const;

  // Bytes of device memory the layer holds.
  std::size_t device_bytes() const;

  struct Impl;  // descriptors and buffers (lstm_cudnn.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpubench::scenarios
