#include "harness/run/counter_recorder.h"

#include "harness/run/telemetry_sampler.h"

namespace gpubench {
namespace {
constexpr int kXidWaitMs = 200;  // how long one wait blocks: the watch ends within this
}

CounterRecorder::CounterRecorder(GpuProbe& probe, std::vector<int> devices)
    : probe_(probe), devices_(std::move(devices)), enabled_(probe.available()) {
  if (!enabled_) return;
  xid_error_ = probe_.watch_xids(devices_);
  watcher_ = std::thread([this] { watch(); });
}

CounterRecorder::~CounterRecorder() {
  done_ = true;
  if (watcher_.joinable()) watcher_.join();
}

void CounterRecorder::watch() {
  while (!done_) {
    const auto xid = probe_.wait_xid(kXidWaitMs);
    if (!xid) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    xids_.push_back({unix_time_s(), *xid});
  }
}

void CounterRecorder::begin_suite(const std::string& suite) {
  if (!enabled_ || (open_ && open_->suite == suite)) return;
  close_window();
  Open open{suite, unix_time_s(), {}};
  for (int device : devices_) open.before[device] = probe_.counters(device);
  open_ = std::move(open);
}

void CounterRecorder::close_window() {
  if (!open_) return;
  const double end_s = unix_time_s();
  std::vector<std::pair<double, DeviceXid>> xids;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    xids = xids_;
  }
  for (int device : devices_) {
    CounterWindow w;
    w.suite = open_->suite;
    w.duration_s = end_s - open_->start_s;
    w.before = open_->before[device];
    w.after = probe_.counters(device);
    w.xid_error = xid_error_;
    for (const auto& [t, event] : xids)
      if (event.device == device && t >= open_->start_s && t <= end_s) w.xids.push_back({t, event.xid});
    windows_[device].push_back(std::move(w));
  }
  open_.reset();
}

std::map<int, std::vector<CounterWindow>> CounterRecorder::finish() {
  close_window();
  done_ = true;
  if (watcher_.joinable()) watcher_.join();
  return windows_;
}

}  // namespace gpubench
