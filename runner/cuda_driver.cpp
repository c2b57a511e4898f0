#include "cuda_driver.hpp"

#include <dlfcn.h>

namespace kx::runner {

bool CudaDriver::load(std::string* error) {
    m_library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!m_library) {
        *error = "no CUDA driver: libcuda.so.1 could not be loaded (running kernels needs an NVIDIA GPU and its driver)";
        return false;
    }
    bool ok = true;
    // The header renames versioned entry points (cuMemAlloc -> cuMemAlloc_v2); resolve the
    // names the header links against so the signatures match.
    auto resolve = [&](auto& fn, const char* symbol) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(m_library, symbol));
        if (!fn) {
            ok = false;
            *error = std::string("the CUDA driver is too old: it lacks ") + symbol;
        }
    };
#define KX_STR2(x) #x
#define KX_STR(x) KX_STR2(x)
#define KX_RESOLVE(name) resolve(name, KX_STR(::name))
    // KX_STR expands the header's macro (e.g. cuMemAlloc -> cuMemAlloc_v2) before quoting.
    resolve(cuInit, "cuInit");
    resolve(cuDriverGetVersion, "cuDriverGetVersion");
    resolve(cuGetErrorString, "cuGetErrorString");
    resolve(cuGetErrorName, "cuGetErrorName");
    resolve(cuDeviceGetCount, "cuDeviceGetCount");
    resolve(cuDeviceGet, "cuDeviceGet");
    resolve(cuDeviceGetName, "cuDeviceGetName");
    resolve(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    resolve(cuDeviceTotalMem, KX_STR(cuDeviceTotalMem));
    resolve(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    resolve(cuCtxSetCurrent, "cuCtxSetCurrent");
    resolve(cuCtxSynchronize, "cuCtxSynchronize");
    resolve(cuModuleLoadData, "cuModuleLoadData");
    resolve(cuModuleUnload, "cuModuleUnload");
    resolve(cuModuleGetFunction, "cuModuleGetFunction");
    resolve(cuFuncSetAttribute, "cuFuncSetAttribute");
    resolve(cuFuncGetAttribute, "cuFuncGetAttribute");
    resolve(cuMemAlloc, KX_STR(cuMemAlloc));
    resolve(cuMemFree, KX_STR(cuMemFree));
    resolve(cuMemGetInfo, KX_STR(cuMemGetInfo));
    resolve(cuMemcpyHtoD, KX_STR(cuMemcpyHtoD));
    resolve(cuMemcpyDtoH, KX_STR(cuMemcpyDtoH));
    resolve(cuMemcpyDtoD, KX_STR(cuMemcpyDtoD));
    resolve(cuMemsetD8, KX_STR(cuMemsetD8));
    resolve(cuMemsetD8Async, KX_STR(cuMemsetD8Async));
    resolve(cuMemcpyDtoDAsync, KX_STR(cuMemcpyDtoDAsync));
    resolve(cuLaunchKernel, KX_STR(cuLaunchKernel));
    resolve(cuEventCreate, "cuEventCreate");
    resolve(cuEventDestroy, KX_STR(cuEventDestroy));
    resolve(cuEventRecord, KX_STR(cuEventRecord));
    resolve(cuEventSynchronize, "cuEventSynchronize");
    resolve(cuEventElapsedTime, KX_STR(cuEventElapsedTime));
    resolve(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    resolve(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    resolve(cuTensorMapEncodeIm2col, "cuTensorMapEncodeIm2col");
    // Optional: only cluster launches need them.
    cuLaunchKernelEx = reinterpret_cast<decltype(cuLaunchKernelEx)>(dlsym(m_library, KX_STR(cuLaunchKernelEx)));
    cuOccupancyMaxActiveClusters = reinterpret_cast<decltype(cuOccupancyMaxActiveClusters)>(dlsym(m_library, "cuOccupancyMaxActiveClusters"));
#undef KX_RESOLVE
    if (!ok) return false;
    const CUresult status = cuInit(0);
    if (status != CUDA_SUCCESS) {
        *error = "the CUDA driver is present but cannot start: " + describe(status);
        return false;
    }
    return true;
}

std::string CudaDriver::describe(CUresult status) const {
    const char* text = nullptr;
    const char* name = nullptr;
    if (cuGetErrorString) cuGetErrorString(status, &text);
    if (cuGetErrorName) cuGetErrorName(status, &name);
    std::string out = text ? text : "unknown error";
    out += " (";
    out += name ? name : ("CUresult " + std::to_string(static_cast<int>(status)));
    out += ")";
    return out;
}

}  // namespace kx::runner
