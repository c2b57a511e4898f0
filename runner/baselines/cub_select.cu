// cub_select: CUB's DeviceSelect::If on the kernel's input, the library baseline of
// templates/filter (stream compaction: keep the elements that pass a test, in order).
//
// Params:
//   dtype      "f32" or "i32": the element type
//   pred       "gt", "lt", "eq", "ne" (x compared with threshold) or "nonzero" (x != 0)
//   threshold  a number, converted to dtype as the kernel receives it (rounded to float, or
//              truncated toward zero for i32)
//   n          number of elements (at least 1)
// Buffers: in (n elements of dtype). The kept elements go to buffers.output when the manifest
// asks for one (output="out": n elements), else to a buffer of the baseline's own; the count
// always goes to a buffer of its own.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"

#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <cmath>
#include <memory>
#include <string>

namespace kx::runner {

namespace {

const std::string kName = "cub_select";

enum class Pred { Greater, Less, Equal, NotEqual, NonZero };

// The predicate as a type, so that CUB's kernel inlines the one comparison it needs.
template <class T, Pred P>
struct Keep {
    T threshold;
    __host__ __device__ bool operator()(const T& x) const {
        if constexpr (P == Pred::Greater) return x > threshold;
        else if constexpr (P == Pred::Less) return x < threshold;
        else if constexpr (P == Pred::Equal) return x == threshold;
        else if constexpr (P == Pred::NotEqual) return x != threshold;
        else return x != T(0);
    }
};

// One CUB call: with temp == nullptr it only sets tempBytes (CUB's two-phase protocol).
template <class T, Pred P>
cudaError_t select(void* temp, std::size_t& tempBytes, CUdeviceptr in, CUdeviceptr out, CUdeviceptr count, long long n, T threshold) {
    return cub::DeviceSelect::If(temp, tempBytes, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(out), reinterpret_cast<int*>(count),
                                 n, Keep<T, P>{threshold});
}

template <class T>
cudaError_t selectTyped(void* temp, std::size_t& tempBytes, CUdeviceptr in, CUdeviceptr out, CUdeviceptr count, long long n, Pred pred,
                        T threshold) {
    switch (pred) {
    case Pred::Greater: return select<T, Pred::Greater>(temp, tempBytes, in, out, count, n, threshold);
    case Pred::Less: return select<T, Pred::Less>(temp, tempBytes, in, out, count, n, threshold);
    case Pred::Equal: return select<T, Pred::Equal>(temp, tempBytes, in, out, count, n, threshold);
    case Pred::NotEqual: return select<T, Pred::NotEqual>(temp, tempBytes, in, out, count, n, threshold);
    case Pred::NonZero: return select<T, Pred::NonZero>(temp, tempBytes, in, out, count, n, threshold);
    }
    return cudaErrorInvalidValue;
}

class CubSelect final : public BaselineInstance {
public:
    CubSelect(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        m_dtype = paramText(params, "dtype", kName);
        paramChoice(params, "dtype", {"f32", "i32"}, kName);
        const std::string pred = paramText(params, "pred", kName);
        m_pred = static_cast<Pred>(paramChoice(params, "pred", {"gt", "lt", "eq", "ne", "nonzero"}, kName));
        m_threshold = paramNumber(params, "threshold", kName);
        m_n = paramInt(params, "n", kName);
        if (m_n < 1) throw RunnerError(kName + ": n must be at least 1", false);
        if (m_dtype == "i32" && !(std::fabs(m_threshold) < 2147483648.0))
            throw RunnerError(kName + ": threshold " + std::to_string(m_threshold) + " does not fit an i32", false);
        m_label = "CUB DeviceSelect::If (" + pred + ") " + m_dtype;

        const std::size_t bytes = static_cast<std::size_t>(m_n) * 4;
        m_in = bufferAt(buffers, 0, bytes, "n = " + std::to_string(m_n) + " " + m_dtype + " elements", kName).ptr;
        m_out = outputOrOwn(ctx, buffers, bytes, kName, m_ownOut);
        m_count = std::make_unique<DeviceBuffer>(ctx, sizeof(int));
        m_step = std::make_unique<CubStep>(ctx, m_label, [this](void* temp, std::size_t& tempBytes) { return dispatch(temp, tempBytes); });
    }

    std::string label() const override { return m_label; }
    void run() override { m_step->run(); }

private:
    cudaError_t dispatch(void* temp, std::size_t& tempBytes) const {
        if (m_dtype == "f32")
            return selectTyped<float>(temp, tempBytes, lent(m_in), lent(m_out), m_count->ptr, m_n, m_pred, static_cast<float>(m_threshold));
        return selectTyped<int>(temp, tempBytes, lent(m_in), lent(m_out), m_count->ptr, m_n, m_pred, static_cast<int>(m_threshold));
    }

    std::string m_dtype, m_label;
    Pred m_pred = Pred::Greater;
    double m_threshold = 0;
    long long m_n = 0;
    CUdeviceptr m_in = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_count;
    std::unique_ptr<CubStep> m_step;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubSelect) {
    return std::make_unique<CubSelect>(ctx, params, buffers);
}

}  // namespace kx::runner
