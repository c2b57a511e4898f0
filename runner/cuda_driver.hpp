// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so that kx-runner starts
// (and says plainly what is missing) on machines without an NVIDIA driver.
#pragma once

#include <cuda.h>

#include <string>

namespace kx::runner {

struct CudaDriver {
    // Loads libcuda.so.1 and resolves every entry point below, then calls cuInit(0).
    // Returns false with *error in plain words when the driver is absent or unusable.
    bool load(std::string* error);

    // "an illegal memory access (CUDA_ERROR_ILLEGAL_ADDRESS)".
    std::string describe(CUresult status) const;

#define KX_DRIVER_FN(name) decltype(&::name) name = nullptr
    KX_DRIVER_FN(cuInit);
    KX_DRIVER_FN(cuDriverGetVersion);
    KX_DRIVER_FN(cuGetErrorString);
    KX_DRIVER_FN(cuGetErrorName);
    KX_DRIVER_FN(cuDeviceGetCount);
    KX_DRIVER_FN(cuDeviceGet);
    KX_DRIVER_FN(cuDeviceGetName);
    KX_DRIVER_FN(cuDeviceGetAttribute);
    KX_DRIVER_FN(cuDeviceTotalMem);
    KX_DRIVER_FN(cuDevicePrimaryCtxRetain);
    KX_DRIVER_FN(cuCtxSetCurrent);
    KX_DRIVER_FN(cuCtxSynchronize);
    KX_DRIVER_FN(cuModuleLoadData);
    KX_DRIVER_FN(cuModuleUnload);
    KX_DRIVER_FN(cuModuleGetFunction);
    KX_DRIVER_FN(cuFuncSetAttribute);
    KX_DRIVER_FN(cuFuncGetAttribute);
    KX_DRIVER_FN(cuMemAlloc);
    KX_DRIVER_FN(cuMemFree);
    KX_DRIVER_FN(cuMemGetInfo);
    KX_DRIVER_FN(cuMemcpyHtoD);
    KX_DRIVER_FN(cuMemcpyDtoH);
    KX_DRIVER_FN(cuMemcpyDtoD);
    KX_DRIVER_FN(cuMemsetD8);
    KX_DRIVER_FN(cuMemsetD8Async);
    KX_DRIVER_FN(cuMemcpyDtoDAsync);
    KX_DRIVER_FN(cuLaunchKernel);
    KX_DRIVER_FN(cuEventCreate);
    KX_DRIVER_FN(cuEventDestroy);
    KX_DRIVER_FN(cuEventRecord);
    KX_DRIVER_FN(cuEventSynchronize);
    KX_DRIVER_FN(cuEventElapsedTime);
    KX_DRIVER_FN(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    KX_DRIVER_FN(cuTensorMapEncodeTiled);
    KX_DRIVER_FN(cuTensorMapEncodeIm2col);
    // CUDA 12 and later; null on an older driver, where cluster launches are refused.
    KX_DRIVER_FN(cuLaunchKernelEx);
    KX_DRIVER_FN(cuOccupancyMaxActiveClusters);
#undef KX_DRIVER_FN

private:
    void* m_library = nullptr;
};

}  // namespace kx::runner
