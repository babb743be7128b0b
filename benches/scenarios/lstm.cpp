// scenarios/lstm: is the host launching too slowly for a recurrent network? One cuDNN LSTM layer
// driven a time step per call (as a framework's cell loop or a decoder drives it), the same calls
// captured once as a CUDA graph and replayed, and one call over the whole sequence; forward alone
// or forward and backward through time.
#include <algorithm>
#include <cmath>
#include <memory>

#include "benches/scenarios/lstm_cudnn.h"
#include "harness/core/captured_graph.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/gpubench.h"
#include "harness/core/peaks.h"
#include "harness/core/verify.h"

namespace {

using namespace gpubench;
using namespace gpubench::scenarios;

// The shape checked against the CPU reference, by the same calls as the measured one.
constexpr LstmShape kCheckShape{5, 3, 24, 24};
constexpr std::uint64_t kSeed = 0x157;

enum class Launch { kSteps, kGraph, kSequence };

Launch parse_launch(const std::string& name) {
  if (name == "steps") return Launch::kSteps;
  if (name == "graph") return Launch::kGraph;
  if (name == "sequence") return Launch::kSequence;
  throw std::invalid_argument("launch must be steps, graph or sequence, not '" + name + "'");
}

// One operation of the benchmark: the pass over the sequence, enqueued call by call, or replayed.
class LstmOperation {
 public:
  LstmOperation(const CudnnLstm& lstm, LstmPass pass, Launch launch, cudaStream_t stream)
      : lstm_(lstm), pass_(pass), by_step_(launch != Launch::kSequence) {
    enqueue(stream);  // cuDNN loads its kernels on first use, which a capture may not do
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    if (launch == Launch::kGraph)
      graph_ = std::make_unique<CapturedGraph>(stream, 1, [this](cudaStream_t s) { enqueue(s); });
  }
  void operator()(cudaStream_t stream) const {
    if (graph_)
      graph_->launch(stream);
    else
      enqueue(stream);
  }
  const CapturedGraph* graph() const { return graph_.get(); }

 private:
  void enqueue(cudaStream_t stream) const {
    lstm_.forward(stream, by_step_);
    if (pass_ == LstmPass::kForwardBackward) lstm_.backward(stream, by_step_);
  }
  const CudnnLstm& lstm_;
  LstmPass pass_;
  bool by_step_;
  std::unique_ptr<CapturedGraph> graph_;
};

// Relative to the largest reference value, so that outputs near zero after cancellation are
// judged by the scale of the array: fp32 (FMA math) to 1e-4, tf32 and fp16 (10-bit inputs) to 2e-2.
Tolerance tolerance_of(LstmType type, const std::vector<double>& want) {
  double largest = 0;
  for (double v : want) largest = std::max(largest, std::abs(v));
  const double rtol = type == LstmType::kFp32 ? 1e-4 : 2e-2;
  return {rtol, rtol * largest};
}

void expect_close(State& s, LstmType type, const std::string& what, const std::vector<double>& got,
                  const std::vector<double>& want) {
  const Tolerance tolerance = tolerance_of(type, want);
  const CloseReport report = allclose(got.data(), want.data(), std::min(got.size(), want.size()), tolerance);
  s.verify(report.ok() && got.size() == want.size(), what + ": " + report.describe(tolerance));
}

std::vector<double> flattened(const LstmWeights& p) {
  std::vector<double> all;
  for (const auto* part : {&p.w, &p.r, &p.bw, &p.br})
    for (const auto& gate : *part) all.insert(all.end(), gate.begin(), gate.end());
  return all;
}

// The same calls on the small shape, against the CPU's LSTM forward and back through time.
void verify_against_reference(State& s, cudnnHandle_t handle, LstmType type, LstmPass pass, Launch launch) {
  const bool training = pass == LstmPass::kForwardBackward;
  const CudnnLstm lstm(handle, kCheckShape, type, training, kSeed + 1, s.stream());
  const LstmOperation op(lstm, pass, launch, s.stream());
  op(s.stream());
  GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
  const LstmWeights weights = lstm.weights();
  const std::vector<double> x = lstm.x();
  const LstmForward want = lstm_forward(kCheckShape, weights, x, lstm.h0(), lstm.c0());
  const std::string shape = "T" + std::to_string(kCheckShape.seq) + " B" + std::to_string(kCheckShape.batch) + " H" +
                            std::to_string(kCheckShape.hidden) + " against the CPU";
  expect_close(s, type, "y, " + shape, lstm.y(), want.y);
  const std::size_t last = std::size_t(kCheckShape.seq) * kCheckShape.batch * kCheckShape.hidden;
  expect_close(s, type, "final c, " + shape, lstm.cy(), {want.c.begin() + last, want.c.end()});
  if (!training) return;
  const LstmGradients grad = lstm_backward(kCheckShape, weights, x, want, lstm.dy(), lstm.dhy(), lstm.dcy());
  expect_close(s, type, "dx, " + shape, lstm.dx(), grad.dx);
  expect_close(s, type, "dhx, " + shape, lstm.dhx(), grad.dhx);
  expect_close(s, type, "dcx, " + shape, lstm.dcx(), grad.dcx);
  expect_close(s, type, "weight gradients, " + shape, flattened(lstm.dweights()), flattened(grad.dweights));
}

// What the measured layer's pass leaves: its outputs, and its gradients when it has them.
std::vector<double> results_of(const CudnnLstm& lstm, LstmPass pass) {
  std::vector<double> all = lstm.y();
  if (pass == LstmPass::kForward) return all;
  for (const auto& part : {lstm.dx(), lstm.dhx(), flattened(lstm.dweights())}) all.insert(all.end(), part.begin(), part.end());
  return all;
}

void run_lstm(State& s) {
  const LstmType type = parse_lstm_type(s.get_str("type"));
  const LstmPass pass = s.get_str("pass") == "forward" ? LstmPass::kForward : LstmPass::kForwardBackward;
  const Launch launch = parse_launch(s.get_str("launch"));
  const LstmShape shape{static_cast<int>(s.get_int("seq")), static_cast<int>(s.get_int("batch")),
                        static_cast<int>(s.get_int("hidden")), static_cast<int>(s.get_int("hidden"))};
  if (shape.seq < 1 || shape.batch < 1 || shape.hidden < 1) s.fail("seq, batch and hidden must be at least 1");
  auto& handle = s.resource<cudnn::CudnnHandle>();
  verify_against_reference(s, handle.get(), type, pass, launch);

  const CudnnLstm lstm(handle.get(), shape, type, pass == LstmPass::kForwardBackward, kSeed, s.stream());
  const LstmOperation op(lstm, pass, launch, s.stream());
  const std::vector<double> first = results_of(lstm, pass);
  s.count_flops(lstm_flops(shape, pass));
  set_datasheet_tflops_peak(s, s.get_str("type"));
  s.report_time_as("step_us", "us", 1e6 / shape.seq);
  s.note("cudnn", handle.version());
  const int calls_per_pass = pass == LstmPass::kForward ? 1 : 3;  // forward; backward data and weights
  s.note("cudnn_calls", calls_per_pass * (launch == Launch::kSequence ? 1 : shape.seq));
  if (op.graph()) s.note("graph_nodes", op.graph()->nodes());
  s.note("device_mib", static_cast<double>(lstm.device_bytes()) / (1 << 20));
  s.measure([&](cudaStream_t stream) { op(stream); });
  GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
  expect_close(s, type, "the measured layer's results after the samples against its first pass", results_of(lstm, pass),
               first);
}

const auto& lstm_family =
    family("scenarios/lstm")
        .describe(
            "One cuDNN LSTM layer (RNN API, standard algorithm, input size = hidden, double bias) over seq time steps. "
            "launch:steps calls cuDNN once per time step (as a cell loop or a decoder does), the state of each step "
            "read from where the previous call wrote it; launch:graph captures those same calls once into a CUDA "
            "graph and replays it; launch:sequence is one call over the whole sequence. pass:forward is inference; "
            "pass:forward_backward adds backward data and backward weights through time (weight gradients zeroed "
            "first). step_us: time of the pass / seq. tflops counts the gate GEMMs only, 2 x 4H x (I + H) per step and "
            "batch row, x3 with the backward pass. type fp32: FMA math; tf32: tensor cores allowed (as torch's "
            "allow_tf32); fp16: FP16 data, FP32 accumulation. Verified: the same calls on T5 B3 H24 against an FP64 "
            "CPU LSTM (outputs, final cell state, and dx, dhx, dcx and weight gradients), and the measured layer's "
            "results after the samples against its first pass. The finding: what the graph saves per step, and the "
            "whole-sequence call beside both")
        .axis_str("type", {"fp32", "tf32", "fp16"}, {"fp16"})
        .axis_str("pass", {"forward", "forward_backward"}, {"forward"})
        .axis_str("launch", {"steps", "graph", "sequence"}, {"graph"})
        .axis_int("seq", {64}, {32})
        .axis_int("hidden", {256, 1024}, {256})
        .axis_int("batch", {16}, {16})
        .per_device()
        .needs_library("cudnn")
        .quiet_host()
        .run(run_lstm);

}  // namespace
