// CUB's two-call convention, written once for every CUB baseline: the algorithm called with a
// null temporary pointer only reports the temporary storage it needs; called again with that
// storage, it runs.
#pragma once

#include "baselines/baseline.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

namespace kx::runner {

class CubStep {
public:
    // call(temp, tempBytes): one CUB device algorithm with its arguments bound.
    using Call = std::function<cudaError_t(void* temp, std::size_t& tempBytes)>;

    // Sizes and allocates the temporary storage; throws RunnerError (not fatal) when CUB refuses.
    CubStep(DeviceContext& ctx, std::string what, Call call) : m_what(std::move(what)), m_call(std::move(call)) {
        const cudaError_t status = m_call(nullptr, m_tempBytes);
        if (status != cudaSuccess)
            throw RunnerError(m_what + ": temporary storage query failed: " + cudaGetErrorString(status), false);
        m_temp = std::make_unique<DeviceBuffer>(ctx, std::max<std::size_t>(m_tempBytes, 1));
    }

    // Enqueues the algorithm on the default stream. An error here may have broken the context,
    // so it is fatal.
    void run() const {
        std::size_t tempBytes = m_tempBytes;
        cudaError_t status = m_call(reinterpret_cast<void*>(m_temp->ptr), tempBytes);
        if (status == cudaSuccess) status = cudaGetLastError();
        if (status != cudaSuccess) throw RunnerError(m_what + " failed: " + cudaGetErrorString(status), true);
    }

private:
    std::string m_what;
    Call m_call;
    std::size_t m_tempBytes = 0;
    std::unique_ptr<DeviceBuffer> m_temp;
};

}  // namespace kx::runner
