// A plain CUDA program measuring what gpubench's launch suite measures for its default kernel
// (empty, 1 block of 128 threads, no arguments), written independently of the harness, to check
// gpubench's figures against. Run both in the same session on the same GPU:
//
//   nvcc -O3 -arch=sm_90 -cudart static scripts/launch_reference.cu -o build-launch/launch_reference
//   build-launch/launch_reference [device]
//   build-launch/gpubench --suite launch --filter 'arg_bytes:0/(grid:1_block/)?work:none' --out launch.json
//
// Each line is "<gpubench benchmark name> <metric> <median>", in gpubench's units, e.g.
//   launch/stream/process_streams:1/figure:enqueue/arg_bytes:0/grid:1_block/work:none/gpu:gpu0 host_enqueue_us 2.04
// Every figure is taken twice: while the program has made one stream (process_streams:1), then
// after a second stream has run 256 launches (process_streams:2), as gpubench's axis of that name.
// Same method as gpubench: the launch kernel adds 1 to a counter (checked at the end); GPU
// figures are taken with the work queued behind a kernel that waits for a host flag, so it runs
// back to back; host figures use steady_clock. gpu_reduction_pct here is computed from the two
// medians, gpubench's is the median of per-sample reductions.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #call, cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

__device__ unsigned long long launches;

__global__ void empty_kernel() {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&launches, 1ull);
}

// What gpubench's process_streams:2 runs on its second stream (kernels/tiny.cu, spin_for_ns_kernel).
__global__ void spin_for_ns(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  atomicAdd(&launches, 1ull);
}

// Gives up after ~2e9 cycles (about a second), so that a full launch queue cannot hang the run.
__global__ void wait_for_flag(const volatile unsigned* flag, unsigned value) {
  const long long start = clock64();
  while (*flag < value && clock64() - start < 2000000000ll) {
  }
}

constexpr int kLaunches = 256;    // per sample, below the ~1000-entry launch queue
constexpr int kRoundTrips = 32;   // per sample
constexpr int kGraphNodes = 1000;
constexpr int kSamples = 300, kWarmup = 30;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Median over kSamples of sample() / per_sample, after kWarmup discarded samples.
template <typename Sample>
double median_per_op(Sample sample, int per_sample) {
  std::vector<double> values;
  for (int i = 0; i < kWarmup + kSamples; ++i) {
    const double seconds = sample();
    if (i >= kWarmup) values.push_back(seconds / per_sample);
  }
  return median(values);
}

int main(int argc, char** argv) {
  const int device = argc > 1 ? std::atoi(argv[1]) : 0;
  CHECK(cudaSetDevice(device));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  unsigned* flag;
  CHECK(cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocMapped));
  *flag = 0;
  unsigned* device_flag;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag), flag, 0));
  unsigned long long launched = 0;

  // Load both kernels before any of them waits on the host.
  empty_kernel<<<1, 128, 0, stream>>>();
  wait_for_flag<<<1, 1, 0, stream>>>(device_flag, 0);
  ++launched;
  CHECK(cudaStreamSynchronize(stream));

  // GPU time of what `enqueue` queues, held until it is all queued; host time of `enqueue`.
  unsigned generation = 0;
  double host_s = 0;
  auto held = [&](auto enqueue) {
    wait_for_flag<<<1, 1, 0, stream>>>(device_flag, ++generation);
    CHECK(cudaEventRecord(start, stream));
    const double t0 = now_s();
    enqueue();
    host_s = now_s() - t0;
    CHECK(cudaEventRecord(stop, stream));
    *static_cast<volatile unsigned*>(flag) = generation;
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return 1e-3 * ms;
  };
  auto launch_many = [&] {
    for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 128, 0, stream>>>();
    launched += kLaunches;
  };

  // Every figure, printed under gpubench's names for the given process_streams value.
  auto measure_all = [&](int process_streams) {
    const double enqueue = median_per_op([&] {
      CHECK(cudaStreamSynchronize(stream));
      const double t0 = now_s();
      for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 128, 0, stream>>>();
      const double t1 = now_s();
      launched += kLaunches;
      CHECK(cudaStreamSynchronize(stream));
      return t1 - t0;
    }, kLaunches);

    const double back_to_back = median_per_op([&] { return held(launch_many); }, kLaunches);

    const double round_trip = median_per_op([&] {
      const double t0 = now_s();
      for (int i = 0; i < kRoundTrips; ++i) {
        empty_kernel<<<1, 128, 0, stream>>>();
        CHECK(cudaStreamSynchronize(stream));
      }
      launched += kRoundTrips;
      return now_s() - t0;
    }, kRoundTrips);

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraphNodes; ++i) empty_kernel<<<1, 128, 0, stream>>>();
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));  // first launch uploads; never under a hold
    launched += kGraphNodes;
    CHECK(cudaStreamSynchronize(stream));
    std::vector<double> graph_host;
    const double graph_gpu = median_per_op([&] {
      const double gpu_s = held([&] { CHECK(cudaGraphLaunch(exec, stream)); });
      launched += kGraphNodes;
      graph_host.push_back(host_s / kGraphNodes);
      return gpu_s;
    }, kGraphNodes);
    graph_host.erase(graph_host.begin(), graph_host.begin() + kWarmup);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));

    char stream_name[96], graph_name[128];
    std::snprintf(stream_name, sizeof stream_name, "launch/stream/process_streams:%d/figure:", process_streams);
    std::snprintf(graph_name, sizeof graph_name,
                  "launch/graph/process_streams:%d/build:capture/nodes:1000/arg_bytes:0/work:none/gpu:gpu%d",
                  process_streams, device);
    const char* shape = "arg_bytes:0/grid:1_block/work:none";
    std::printf("%senqueue/%s/gpu:gpu%d host_enqueue_us %.4f\n", stream_name, shape, device, enqueue * 1e6);
    std::printf("%sback_to_back/%s/gpu:gpu%d gpu_time_per_kernel_us %.4f\n", stream_name, shape, device,
                back_to_back * 1e6);
    std::printf("%sround_trip/%s/gpu:gpu%d round_trip_us %.4f\n", stream_name, shape, device, round_trip * 1e6);
    std::printf("%s gpu_time_per_node_us %.4f\n", graph_name, graph_gpu * 1e6);
    std::printf("%s graph_host_launch_per_node_us %.5f\n", graph_name, median(graph_host) * 1e6);
    std::printf("%s gpu_reduction_pct %.2f\n", graph_name, 100.0 * (1.0 - graph_gpu / back_to_back));
  };

  measure_all(1);
  // As gpubench's process_streams:2: a second stream runs a batch of launches, then goes.
  cudaStream_t second;
  CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  for (int i = 0; i < kLaunches; ++i) spin_for_ns<<<1, 1, 0, second>>>(0);
  launched += kLaunches;
  CHECK(cudaStreamSynchronize(second));
  CHECK(cudaStreamDestroy(second));
  measure_all(2);

  CHECK(cudaDeviceSynchronize());
  unsigned long long counted = 0;
  CHECK(cudaMemcpyFromSymbol(&counted, launches, sizeof counted));
  if (counted != launched) {
    std::fprintf(stderr, "verification failed: %llu kernels ran, %llu launched\n", counted, launched);
    return 1;
  }

  return 0;
}
