// cub_scan: CUB's DeviceScan on the kernel's input, the library baseline of templates/scan.
//
// Params:
//   dtype  "f32", "i32" or "i64": the element type of the input and the output
//   op     "sum", "max" or "min": the scan operator
//   kind   "inclusive" or "exclusive"; an exclusive scan starts from the operator's identity, as
//          the template's does: 0 for a sum, -inf (f32) or the lowest integer for a max, +inf or
//          the highest integer for a min
//   n      number of elements (at least 1)
// Buffers: in (n elements of dtype). The result goes to buffers.output when the manifest asks
// for one (output="out": n elements), else to a buffer of the baseline's own.
//
// Sums use DeviceScan::InclusiveSum / ExclusiveSum and max and min use InclusiveScan /
// ExclusiveScan with cuda::maximum<> / cuda::minimum<>: CUB's own operators, for which its tuning
// tables hold tuned policies (a custom functor would get the generic ones and make CUB look slower
// than it is).
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"

#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

namespace kx::runner {

namespace {

const std::string kName = "cub_scan";

enum class Op { Sum, Max, Min };

template <class T>
T lowestValue() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}
template <class T>
T highestValue() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}

// One CUB call: with temp == nullptr it only sets tempBytes (CUB's two-phase protocol).
template <class T>
cudaError_t scan(void* temp, std::size_t& tempBytes, CUdeviceptr in, CUdeviceptr out, long long n, Op op, bool exclusive) {
    const T* src = reinterpret_cast<const T*>(in);
    T* dst = reinterpret_cast<T*>(out);
    switch (op) {
    case Op::Sum:
        return exclusive ? cub::DeviceScan::ExclusiveSum(temp, tempBytes, src, dst, n)
                         : cub::DeviceScan::InclusiveSum(temp, tempBytes, src, dst, n);
    case Op::Max:
        return exclusive ? cub::DeviceScan::ExclusiveScan(temp, tempBytes, src, dst, cuda::maximum<>{}, lowestValue<T>(), n)
                         : cub::DeviceScan::InclusiveScan(temp, tempBytes, src, dst, cuda::maximum<>{}, n);
    case Op::Min:
        return exclusive ? cub::DeviceScan::ExclusiveScan(temp, tempBytes, src, dst, cuda::minimum<>{}, highestValue<T>(), n)
                         : cub::DeviceScan::InclusiveScan(temp, tempBytes, src, dst, cuda::minimum<>{}, n);
    }
    return cudaErrorInvalidValue;
}

class CubScan final : public BaselineInstance {
public:
    CubScan(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        m_dtype = paramText(params, "dtype", kName);
        m_elemBytes = paramChoice(params, "dtype", {"f32", "i32", "i64"}, kName) == 2 ? 8 : 4;
        const std::string op = paramText(params, "op", kName);
        m_op = static_cast<Op>(paramChoice(params, "op", {"sum", "max", "min"}, kName));
        m_exclusive = paramChoice(params, "kind", {"inclusive", "exclusive"}, kName) == 1;
        m_n = paramInt(params, "n", kName);
        if (m_n < 1) throw RunnerError(kName + ": n must be at least 1", false);
        m_label = std::string("CUB DeviceScan::") + (m_exclusive ? "Exclusive" : "Inclusive") + (m_op == Op::Sum ? "Sum " : "Scan (" + op + ") ") + m_dtype;

        const std::size_t bytes = static_cast<std::size_t>(m_n) * m_elemBytes;
        m_in = bufferAt(buffers, 0, bytes, "n = " + std::to_string(m_n) + " " + m_dtype + " elements", kName).ptr;
        m_out = outputOrOwn(ctx, buffers, bytes, kName, m_ownOut);
        m_step = std::make_unique<CubStep>(ctx, m_label, [this](void* temp, std::size_t& tempBytes) { return dispatch(temp, tempBytes); });
    }

    std::string label() const override { return m_label; }
    void run() override { m_step->run(); }

private:
    cudaError_t dispatch(void* temp, std::size_t& tempBytes) const {
        if (m_dtype == "f32") return scan<float>(temp, tempBytes, lent(m_in), lent(m_out), m_n, m_op, m_exclusive);
        if (m_dtype == "i32") return scan<int>(temp, tempBytes, lent(m_in), lent(m_out), m_n, m_op, m_exclusive);
        return scan<long long>(temp, tempBytes, lent(m_in), lent(m_out), m_n, m_op, m_exclusive);
    }

    std::string m_dtype, m_label;
    Op m_op = Op::Sum;
    bool m_exclusive = false;
    long long m_n = 0;
    std::size_t m_elemBytes = 0;
    CUdeviceptr m_in = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut;
    std::unique_ptr<CubStep> m_step;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubScan) {
    return std::make_unique<CubScan>(ctx, params, buffers);
}

}  // namespace kx::runner
