#include "harness/run/telemetry_sampler.h"

#include <chrono>

namespace gpubench {

double unix_time_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TelemetrySampler::TelemetrySampler(GpuProbe& probe, std::vector<int> devices, std::string benchmark, Mode mode,
                                   int interval_ms)
    : probe_(probe), devices_(std::move(devices)), benchmark_(std::move(benchmark)),
      mode_(interval_ms > 0 || mode != Mode::kInterval ? mode : Mode::kOff), interval_ms_(interval_ms) {
  if (mode_ == Mode::kOff) return;
  read_all();
  if (mode_ == Mode::kInterval) thread_ = std::thread([this] { poll(); });
}

TelemetrySampler::~TelemetrySampler() { finish(); }

const char* TelemetrySampler::to_string(Mode mode) {
  switch (mode) {
    case Mode::kOff: return "off";
    case Mode::kBeforeAfter: return "before_after";
    case Mode::kInterval: return "interval";
  }
  return "?";
}

TelemetrySample TelemetrySampler::read(int device) {
  TelemetrySample sample;
  sample.gpu = device;
  sample.benchmark = benchmark_;
  sample.reading = probe_.read(device);
  sample.t_s = unix_time_s();
  std::lock_guard<std::mutex> lock(mutex_);
  samples_.push_back(sample);
  return sample;
}

void TelemetrySampler::read_all() {
  for (int device : devices_) read(device);
}

std::optional<TelemetryReading> TelemetrySampler::read_now(int device) {
  if (mode_ == Mode::kOff || finished_) return std::nullopt;
  return read(device).reading;
}

void TelemetrySampler::poll() {
  std::unique_lock<std::mutex> lock(mutex_);
  // The wait is on a condition, so that finish() does not wait out a whole interval.
  while (!wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return done_; })) {
    lock.unlock();
    read_all();
    lock.lock();
  }
}

const std::vector<TelemetrySample>& TelemetrySampler::finish() {
  if (finished_) return samples_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (mode_ != Mode::kOff) read_all();
  add_throughput(samples_);
  finished_ = true;
  return samples_;
}

}  // namespace gpubench
