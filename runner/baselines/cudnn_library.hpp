// cuDNN, loaded at run time and shared by the cuDNN baselines (cudnn_conv, cudnn_attention).
// kx-runner never links it, so it starts and runs everything else without it: the first request
// that asks for a cuDNN baseline dlopens the library and resolves every entry point below by
// name. Only the header has to be there at build time; a runner built without cudnn.h has
// KX_HAVE_CUDNN_HEADER 0, none of these declarations, and its cuDNN baselines always take their
// fallbacks.
#pragma once

#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define KX_HAVE_CUDNN_HEADER 1
#else
#define KX_HAVE_CUDNN_HEADER 0
#endif

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#if KX_HAVE_CUDNN_HEADER

namespace kx::runner {

// Every cuDNN entry point the baselines call: the handle, the legacy convolution API, and the
// backend (graph) API that describes operation graphs such as fused attention.
#define KX_CUDNN_FUNCTIONS(X)                                                                                       \
    X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnGetLastErrorString) X(cudnnCreate) X(cudnnDestroy)             \
    X(cudnnSetStream) X(cudnnCreateTensorDescriptor) X(cudnnSetTensorNdDescriptorEx) X(cudnnDestroyTensorDescriptor) \
    X(cudnnCreateFilterDescriptor) X(cudnnSetFilterNdDescriptor) X(cudnnDestroyFilterDescriptor)                    \
    X(cudnnCreateConvolutionDescriptor) X(cudnnSetConvolutionNdDescriptor) X(cudnnSetConvolutionGroupCount)         \
    X(cudnnSetConvolutionMathType) X(cudnnDestroyConvolutionDescriptor) X(cudnnFindConvolutionForwardAlgorithm)     \
    X(cudnnFindConvolutionBackwardDataAlgorithm) X(cudnnFindConvolutionBackwardFilterAlgorithm)                     \
    X(cudnnConvolutionForward) X(cudnnConvolutionBackwardData) X(cudnnConvolutionBackwardFilter)                    \
    X(cudnnBackendCreateDescriptor) X(cudnnBackendDestroyDescriptor) X(cudnnBackendSetAttribute)                     \
    X(cudnnBackendGetAttribute) X(cudnnBackendFinalize) X(cudnnBackendExecute)

struct CudnnApi {
#define KX_CUDNN_POINTER(name) decltype(&::name) name = nullptr;
    KX_CUDNN_FUNCTIONS(KX_CUDNN_POINTER)
#undef KX_CUDNN_POINTER
    std::size_t version = 0;  // cudnnGetVersion(): major * 10000 + minor * 100 + patch (9.14.0: 91400)
    std::string error;        // why no cuDNN could be loaded; empty when one was
};

// The process's cuDNN, loaded on the first call (thread-safe) and kept for the process's life.
// Where it may be, in order: KX_CUDNN_LIBRARY, the loader's search path, the CUDA Toolkit this
// runner was built against, then the Python wheels (nvidia-cudnn-cu*) that PyTorch installs. A
// library is taken only when it has every function above and the major version of the header
// the runner was built with; otherwise `error` says what was found and why it would not do.
const CudnnApi& cudnnApi();

// "9.14.0".
std::string cudnnVersionText(const CudnnApi& api);

// cudnnGetLastErrorString: cuDNN's explanation of the last failure on this thread ("" if none).
std::string cudnnLastErrorText(const CudnnApi& api);
// "what: CUDNN_STATUS_NOT_SUPPORTED (cuDNN's own message, when it left one)".
std::string cudnnFailureText(const CudnnApi& api, cudnnStatus_t status, const std::string& what);

// cuDNN declined to set a baseline up (an unsupported problem, no engine, no plan); the baseline
// then takes its fallback, whose label quotes what() so that one run tells what went wrong.
struct CudnnRefused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One backend (graph API) descriptor, destroyed with its owner. Every call that fails throws
// CudnnRefused naming what the descriptor is ("the execution plan") and cuDNN's words.
class CudnnDescriptor {
public:
    CudnnDescriptor(const CudnnApi& api, cudnnBackendDescriptorType_t type, std::string what);
    ~CudnnDescriptor();
    CudnnDescriptor(CudnnDescriptor&& other) noexcept;
    CudnnDescriptor& operator=(CudnnDescriptor&& other) noexcept;
    CudnnDescriptor(const CudnnDescriptor&) = delete;
    CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;

    cudnnBackendDescriptor_t get() const { return m_desc; }
    const std::string& what() const { return m_what; }

    // cudnnBackendSetAttribute with `count` values of `type` (cuDNN copies them).
    CudnnDescriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const void* values, std::int64_t count = 1);
    // Another descriptor as the attribute's value.
    CudnnDescriptor& set(cudnnBackendAttributeName_t name, const CudnnDescriptor& value);
    CudnnDescriptor& finalize();
    // cudnnBackendGetAttribute of one value; returns the count cuDNN reported.
    std::int64_t get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, void* value) const;

private:
    void check(cudnnStatus_t status, const std::string& doing) const;

    const CudnnApi* m_api;
    cudnnBackendDescriptor_t m_desc = nullptr;
    std::string m_what;
};

}  // namespace kx::runner

#endif  // KX_HAVE_CUDNN_HEADER
