// "cub_reduce": CUB's DeviceReduce over the kernel's input (args="in"), fp32 accumulation
// whatever the input type, as the reduce template does. Params: dtype (f32, f16, bf16), op (sum,
// max), n. Writes its one float to the output buffer when the manifest asks.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"
#include "baselines/float_operators.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <memory>

namespace kx::runner {
namespace {

// Calls call(T*, op, init) with the input type and operator named by dtype and op.
template <class Call>
cudaError_t dispatch(const std::string& dtype, const std::string& op, Call call) {
    const bool max = op == "max";
    const float init = max ? -INFINITY : 0.0f;
    if (dtype == "f32") return max ? call(static_cast<const float*>(nullptr), MaxF{}, init) : call(static_cast<const float*>(nullptr), SumF{}, init);
    if (dtype == "f16") return max ? call(static_cast<const __half*>(nullptr), MaxF{}, init) : call(static_cast<const __half*>(nullptr), SumF{}, init);
    return max ? call(static_cast<const __nv_bfloat16*>(nullptr), MaxF{}, init) : call(static_cast<const __nv_bfloat16*>(nullptr), SumF{}, init);
}

class CubReduce : public BaselineInstance {
public:
    CubReduce(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers)
        : m_dtype(paramText(params, "dtype", "cub_reduce")), m_op(paramText(params, "op", "cub_reduce")),
          m_n(static_cast<std::size_t>(paramInt(params, "n", "cub_reduce"))), m_in(bufferAt(buffers, 0, "cub_reduce").ptr) {
        if (m_op != "sum" && m_op != "max") throw RunnerError("cub_reduce: op must be sum or max", false);
        if (m_dtype != "f32" && m_dtype != "f16" && m_dtype != "bf16") throw RunnerError("cub_reduce: dtype must be f32, f16 or bf16", false);
        m_out = outputOrOwn(ctx, buffers, sizeof(float), "cub_reduce", m_ownOut);
        m_step = std::make_unique<CubStep>(ctx, label(), [this](void* temp, std::size_t& tempBytes) { return call(temp, tempBytes); });
    }
    std::string label() const override { return "CUB DeviceReduce " + m_dtype + " " + m_op; }
    void run() override { m_step->run(); }

private:
    cudaError_t call(void* temp, std::size_t& tempBytes) const {
        return dispatch(m_dtype, m_op, [&](auto typed, auto fn, float init) {
            using T = std::remove_const_t<std::remove_pointer_t<decltype(typed)>>;
            return cub::DeviceReduce::Reduce(temp, tempBytes, reinterpret_cast<const T*>(lent(m_in)), reinterpret_cast<float*>(lent(m_out)),
                                             static_cast<long long>(m_n), fn, init);
        });
    }

    std::string m_dtype, m_op;
    std::size_t m_n;
    CUdeviceptr m_in, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut;
    std::unique_ptr<CubStep> m_step;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubReduce) { return std::make_unique<CubReduce>(ctx, params, buffers); }

}  // namespace kx::runner
