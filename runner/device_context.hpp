// One GPU opened through the driver: its facts, its primary context, and helpers that turn
// driver failures into plain-word exceptions.
#pragma once

#include "cuda_driver.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace kx::runner {

// A failure to report to the caller. fatal: the context is unusable (a kernel faulted), so the
// runner answers and then exits; the caller starts a fresh one.
class RunnerError : public std::runtime_error {
public:
    RunnerError(const std::string& message, bool fatal) : std::runtime_error(message), m_fatal(fatal) {}
    bool fatal() const { return m_fatal; }

private:
    bool m_fatal;
};

struct DeviceInfo {
    int index = 0;
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0;
    long long memoryBytes = 0;
    long long l2Bytes = 0;
    int clockKhz = 0;        // SM clock as the driver reports it
    int memoryClockKhz = 0;
    int memoryBusBits = 0;
    long long smemPerBlockOptin = 0;
    nlohmann::json toJson() const;
};

class DeviceContext {
public:
    DeviceContext(const CudaDriver& driver, int index);  // throws RunnerError
    const DeviceInfo& info() const { return m_info; }
    const CudaDriver& driver() const { return m_driver; }
    CUcontext context() const { return m_context; }

    // Throws RunnerError naming what was being done; faults after a launch are fatal.
    void check(CUresult status, const std::string& what) const;

private:
    const CudaDriver& m_driver;
    DeviceInfo m_info;
    CUcontext m_context = nullptr;
};

DeviceInfo queryDevice(const CudaDriver& driver, int index);

}  // namespace kx::runner
