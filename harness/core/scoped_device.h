#pragma once
// Makes `device` current for a scope and restores the previous one, so that the harness's own
// calls after work on several GPUs still address the benchmark's device.
namespace gpubench {

class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace gpubench
