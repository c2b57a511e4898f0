// CUB's two-call convention, written once for every CUB baseline: the algorithm called with a
// null temporary pointer only reports the temporary storage it needs; called again with that
// storage, it runs. CubStep runs one algorithm; CubSequence several, in turn.
#pragma once

#include "baselines/baseline.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

// CUB algorithms that run one after another on one temporary storage, sized for the largest of
// them. Each status goes to the baseline's own `check`, with the words of what was being done.
class CubSequence {
public:
    using Check = void (*)(cudaError_t status, const char* what);
    struct Step {
        const char* sizing;   // "sizing the sort"
        const char* running;  // "sorting"
        CubStep::Call call;
    };

    CubSequence(DeviceContext& ctx, std::vector<Step> steps, Check check) : m_steps(std::move(steps)), m_check(check) {
        for (const Step& step : m_steps) {
            std::size_t bytes = 0;
            m_check(step.call(nullptr, bytes), step.sizing);
            m_tempBytes = std::max(m_tempBytes, bytes);
        }
        m_temp = std::make_unique<DeviceBuffer>(ctx, m_tempBytes);
    }

    // Enqueues every step, in order, on the default stream.
    void run() const {
        for (const Step& step : m_steps) {
            std::size_t bytes = m_tempBytes;
            m_check(step.call(reinterpret_cast<void*>(m_temp->ptr), bytes), step.running);
        }
    }

private:
    std::vector<Step> m_steps;
    Check m_check;
    std::size_t m_tempBytes = 0;
    std::unique_ptr<DeviceBuffer> m_temp;
};

}  // namespace kx::runner
