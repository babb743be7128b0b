// The run layer's telemetry against a fake NVML (a GpuProbe of canned readings): the sampler
// thread, the cooldown on a fake clock, and the error counters around suites with XID events.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <thread>
#include <mutex>

#include "harness/run/cooldown.h"
#include "harness/run/counter_recorder.h"
#include "harness/run/telemetry_sampler.h"

namespace gpubench {
namespace {

// Readings per device, replayed in order (the last one repeats); counters likewise.
class FakeProbe : public GpuProbe {
 public:
  bool available() const override { return available_; }
  TelemetryReading read(int device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++reads_[device];
    return next(readings_[device]);
  }
  ErrorCounters counters(int device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return next(counters_[device]);
  }
  std::string watch_xids(const std::vector<int>& devices) override {
    watched_ = devices;
    return xid_error_;
  }
  std::optional<DeviceXid> wait_xid(int) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (xids_.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // as a real wait would block
      return std::nullopt;
    }
    const DeviceXid xid = xids_.front();
    xids_.pop_front();
    return xid;
  }

  void push(int device, TelemetryReading r) { readings_[device].push_back(r); }
  void push(int device, ErrorCounters c) { counters_[device].push_back(c); }
  void raise_xid(int device, std::uint64_t xid) {
    std::lock_guard<std::mutex> lock(mutex_);
    xids_.push_back({device, xid});
  }
  int reads(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    return reads_[device];
  }
  bool available_ = true;
  std::string xid_error_;
  std::vector<int> watched_;

 private:
  template <class T>
  static T next(std::deque<T>& queue) {
    if (queue.empty()) return T{};
    T value = queue.front();
    if (queue.size() > 1) queue.pop_front();
    return value;
  }
  std::mutex mutex_;
  std::map<int, std::deque<TelemetryReading>> readings_;
  std::map<int, std::deque<ErrorCounters>> counters_;
  std::deque<DeviceXid> xids_;
  std::map<int, int> reads_;
};

TelemetryReading reading(double temp, double sm_mhz = 1980, std::uint64_t reasons = 0) {
  TelemetryReading r;
  r.temp_c = temp;
  r.sm_clock_mhz = sm_mhz;
  r.power_w = 500;
  r.clock_event_reasons = reasons;
  return r;
}

TEST(TelemetrySampler, SamplesOnAThreadAndSeesThrottlingInTheMiddle) {
  FakeProbe probe;
  probe.push(0, reading(40, 1980));
  probe.push(0, reading(60, 1600, 0x4));  // power capped in the middle
  probe.push(0, reading(55, 1980));
  TelemetrySampler sampler(probe, {0}, "gemm/x", TelemetrySampler::Mode::kInterval, 2);
  while (probe.reads(0) < 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto& samples = sampler.finish();
  ASSERT_GE(samples.size(), 4u);
  for (std::size_t i = 1; i < samples.size(); ++i) EXPECT_GE(samples[i].t_s, samples[i - 1].t_s);
  EXPECT_EQ(samples[0].benchmark, "gemm/x");
  const auto summary = summarize_telemetry(samples, 0);
  EXPECT_EQ(summary["sm_clock_mhz"]["min"], 1600);
  EXPECT_EQ(summary["temp_c"]["max"], 60);
  EXPECT_TRUE(summary["throttled"]);
  EXPECT_EQ(summary["throttle_reasons"], nlohmann::json({"sw_power_cap"}));
  EXPECT_EQ(&sampler.finish(), &samples);  // finishing twice returns the same series
}

TEST(TelemetrySampler, BeforeAfterReadsTwiceAndOffNever) {
  FakeProbe probe;
  probe.push(1, reading(40));
  {
    TelemetrySampler quiet(probe, {1}, "launch/x", TelemetrySampler::Mode::kBeforeAfter, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(quiet.finish().size(), 2u);
  }
  TelemetrySampler off(probe, {1}, "launch/x", TelemetrySampler::Mode::kInterval, 0);  // --telemetry-interval 0
  EXPECT_EQ(off.mode(), TelemetrySampler::Mode::kOff);
  EXPECT_TRUE(off.finish().empty());
  EXPECT_EQ(probe.reads(1), 2);
}

TEST(TelemetrySampler, AReadingOnRequestJoinsTheTraceAndNoneWhenOff) {
  FakeProbe probe;
  probe.push(0, reading(40));
  probe.push(0, reading(55));
  TelemetrySampler sampler(probe, {0}, "gemm/sustained", TelemetrySampler::Mode::kBeforeAfter, 1);
  const auto now = sampler.read_now(0);  // what State::telemetry_now() returns to a family
  ASSERT_TRUE(now);
  EXPECT_EQ(now->temp_c, 55);
  EXPECT_EQ(sampler.finish().size(), 3u);  // before, on request, after
  EXPECT_FALSE(sampler.read_now(0));       // finished: the trace is closed
  TelemetrySampler off(probe, {0}, "gemm/sustained", TelemetrySampler::Mode::kOff, 1);
  EXPECT_FALSE(off.read_now(0));
}

// A clock that moves only when the cooldown sleeps.
struct FakeClock {
  double now = 100;
  int sleeps = 0;
  CooldownClock clock() {
    return {[this] { return now; }, [this](double s) { now += s, ++sleeps; }};
  }
};

TelemetrySettings cooldown_settings(double max_wait_s) {
  TelemetrySettings s;
  s.cooldown_margin_c = 5;
  s.cooldown_max_wait_s = max_wait_s;
  s.idle_temp_c = {{0, 30}, {1, 32}};
  return s;
}

TEST(Cooldown, WaitsUntilEveryGpuIsNearIdleAndRecordsHowLong) {
  FakeProbe probe;
  for (double t : {60.0, 50.0, 40.0, 35.0}) probe.push(0, reading(t));
  probe.push(1, reading(36));
  FakeClock clock;
  const CooldownRecord r = cool_down(probe, {0, 1}, cooldown_settings(60), clock.clock(), 0.5);
  EXPECT_EQ(r.stopped, "idle");
  EXPECT_DOUBLE_EQ(r.waited_s, 1.5);  // three sleeps of 0.5 s
  EXPECT_EQ(r.temp_c, 36);            // the hottest GPU when it ended, against its own target
  EXPECT_EQ(r.target_c, 37);
  EXPECT_EQ(to_json(r)["stopped"], "idle");
}

TEST(Cooldown, IsBoundedByTheMaximumWait) {
  FakeProbe probe;
  probe.push(0, reading(80));
  FakeClock clock;
  const CooldownRecord r = cool_down(probe, {0}, cooldown_settings(2), clock.clock(), 0.75);
  EXPECT_EQ(r.stopped, "max_wait");
  EXPECT_DOUBLE_EQ(r.waited_s, 2);
  EXPECT_EQ(clock.sleeps, 3);  // 0.75, 0.75, then the 0.5 s left
}

TEST(Cooldown, AThrottledGpuIsNotIdleEvenWhenCool) {
  FakeProbe probe;
  probe.push(0, reading(31, 1400, 0x20));  // sw thermal slowdown
  probe.push(0, reading(31));
  FakeClock clock;
  EXPECT_EQ(cool_down(probe, {0}, cooldown_settings(10), clock.clock(), 1).waited_s, 1);
}

TEST(Cooldown, OffAndUnavailableAreRecordedAsSuch) {
  FakeProbe probe;
  FakeClock clock;
  EXPECT_EQ(cool_down(probe, {0}, cooldown_settings(0), clock.clock()).stopped, "off");
  TelemetryReading no_temperature = reading(40);
  no_temperature.temp_c.reset();
  probe.push(0, no_temperature);
  EXPECT_EQ(cool_down(probe, {0}, cooldown_settings(60), clock.clock()).stopped, "unavailable");
  TelemetrySettings absolute = cooldown_settings(60);
  absolute.idle_temp_c.clear();  // no idle reference, but a target to wait for
  absolute.cooldown_target_c = 45;
  probe.push(1, reading(44));
  EXPECT_EQ(cool_down(probe, {1}, absolute, clock.clock()).stopped, "idle");
}

TEST(CounterRecorder, WindowPerSuiteWithDeltasAndTheXidsInIt) {
  FakeProbe probe;
  ErrorCounters clean, after;
  clean.ecc_uncorrected = 0;
  after.ecc_uncorrected = 1;
  probe.push(0, clean);
  probe.push(0, clean);  // end of memory, start of gemm
  probe.push(0, clean);
  probe.push(0, after);  // end of gemm
  CounterRecorder recorder(probe, {0});
  EXPECT_EQ(probe.watched_, std::vector<int>{0});
  recorder.begin_suite("memory");
  recorder.begin_suite("memory");  // the same suite: the window stays open
  recorder.begin_suite("gemm");
  probe.raise_xid(0, 79);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the watch thread takes it
  auto windows = recorder.finish();
  ASSERT_EQ(windows[0].size(), 2u);
  EXPECT_EQ(windows[0][0].suite, "memory");
  EXPECT_EQ(counter_delta(windows[0][0].before, windows[0][0].after).ecc_uncorrected, 0u);
  EXPECT_TRUE(windows[0][0].xids.empty());
  EXPECT_EQ(counter_delta(windows[0][1].before, windows[0][1].after).ecc_uncorrected, 1u);
  ASSERT_EQ(windows[0][1].xids.size(), 1u);
  EXPECT_EQ(windows[0][1].xids[0].xid, 79u);
}

TEST(CounterRecorder, NothingWithoutNvmlAndTheXidProblemIsKept) {
  FakeProbe none;
  none.available_ = false;
  CounterRecorder off(none, {0});
  off.begin_suite("memory");
  EXPECT_TRUE(off.finish().empty());
  FakeProbe no_events;
  no_events.xid_error_ = "this NVML has no event API";
  CounterRecorder recorder(no_events, {0});
  recorder.begin_suite("memory");
  EXPECT_EQ(recorder.finish()[0][0].xid_error, "this NVML has no event API");
}

}  // namespace
}  // namespace gpubench
