#include "device_context.hpp"

namespace kx::runner {

nlohmann::json DeviceInfo::toJson() const {
    return {{"index", index},
            {"name", name},
            {"compute_capability", std::to_string(ccMajor) + "." + std::to_string(ccMinor)},
            {"arch", "sm_" + std::to_string(ccMajor * 10 + ccMinor)},
            {"sm_count", smCount},
            {"memory_bytes", memoryBytes},
            {"l2_bytes", l2Bytes},
            {"clock_mhz", clockKhz / 1000.0},
            {"memory_clock_mhz", memoryClockKhz / 1000.0},
            {"memory_bus_bits", memoryBusBits},
            {"smem_per_block_optin", smemPerBlockOptin}};
}

DeviceInfo queryDevice(const CudaDriver& d, int index) {
    int count = 0;
    if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
        throw RunnerError("no CUDA device is visible", false);
    if (index < 0 || index >= count)
        throw RunnerError("device " + std::to_string(index) + " does not exist (this machine has " + std::to_string(count) + ")", false);
    CUdevice dev;
    d.cuDeviceGet(&dev, index);
    DeviceInfo info;
    info.index = index;
    char name[256] = {};
    d.cuDeviceGetName(name, sizeof name, dev);
    info.name = name;
    auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        d.cuDeviceGetAttribute(&v, a, dev);
        return v;
    };
    info.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info.l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    info.clockKhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    info.memoryClockKhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    info.memoryBusBits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    info.smemPerBlockOptin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    size_t bytes = 0;
    d.cuDeviceTotalMem(&bytes, dev);
    info.memoryBytes = static_cast<long long>(bytes);
    return info;
}

DeviceContext::DeviceContext(const CudaDriver& driver, int index) : m_driver(driver), m_info(queryDevice(driver, index)) {
    CUdevice dev;
    check(driver.cuDeviceGet(&dev, index), "opening the device");
    // The primary context is the one the CUDA runtime (and so cuBLAS) uses too.
    check(driver.cuDevicePrimaryCtxRetain(&m_context, dev), "creating a context");
    check(driver.cuCtxSetCurrent(m_context), "making the context current");
}

void DeviceContext::check(CUresult status, const std::string& what) const {
    if (status == CUDA_SUCCESS) return;
    const bool fatal = status == CUDA_ERROR_ILLEGAL_ADDRESS || status == CUDA_ERROR_LAUNCH_FAILED ||
                       status == CUDA_ERROR_ILLEGAL_INSTRUCTION || status == CUDA_ERROR_MISALIGNED_ADDRESS ||
                       status == CUDA_ERROR_INVALID_PC || status == CUDA_ERROR_HARDWARE_STACK_ERROR ||
                       status == CUDA_ERROR_ASSERT || status == CUDA_ERROR_LAUNCH_TIMEOUT ||
                       status == CUDA_ERROR_ECC_UNCORRECTABLE || status == CUDA_ERROR_UNKNOWN;
    std::string message = what + " failed: " + m_driver.describe(status);
    // Say what happened to the kernel first, in plain words; the driver's words follow.
    if (status == CUDA_ERROR_ILLEGAL_ADDRESS || status == CUDA_ERROR_MISALIGNED_ADDRESS)
        message = "the kernel faulted: it accessed memory out of bounds or misaligned — " + message;
    else if (status == CUDA_ERROR_ILLEGAL_INSTRUCTION || status == CUDA_ERROR_ASSERT || status == CUDA_ERROR_LAUNCH_FAILED)
        message = "the kernel faulted: it trapped (a trap, an assert, or another error the GPU does not specify) — " + message;
    else if (fatal)
        message = "the kernel faulted — " + message;
    throw RunnerError(message, fatal);
}

}  // namespace kx::runner
