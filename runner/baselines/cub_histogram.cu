// "cub_histogram": CUB's DeviceHistogram::HistogramEven over the histogram template's samples:
// bins equal-width bins between lo (inclusive) and hi (exclusive), samples outside dropped,
// unsigned int counts.
//
//   params   dtype  f32 (float samples) or i32 (int samples)
//            bins   number of bins, at least 1 (CUB's num_levels is bins + 1)
//            lo     lower edge of the first bin; for i32 it must be an integer
//            hi     upper edge of the last bin, above lo; for i32 an integer (the histogram
//                   template passes lo = 0, hi = bins, so key k counts in bin k)
//            n      number of samples
//   buffers  samples (n x dtype)
//   output   the bins counts (bins x u32), when the manifest asks (output="hist"); otherwise a
//            buffer of its own.
//
// For f32, CUB bins a sample x in [lo, hi) as (int)((x - lo) * (bins / (hi - lo))) in fp32, the
// rule the template's kernel and CPU reference repeat, so the counts agree exactly. CUB clears
// the counts itself on every call, so a run is the whole operation.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <cmath>
#include <memory>

namespace kx::runner {
namespace {

const std::string kName = "cub_histogram";

// The params, checked: n samples of dtype counted into `bins` even bins over [lo, hi).
struct HistogramParams {
    std::string dtype;
    int bins = 0;
    long long n = 0;
    double lo = 0, hi = 1;
};

HistogramParams readParams(const nlohmann::json& params) {
    HistogramParams p;
    p.dtype = paramText(params, "dtype", kName);
    const long long bins = paramInt(params, "bins", kName);
    p.n = paramInt(params, "n", kName);
    p.lo = paramNumber(params, "lo", kName), p.hi = paramNumber(params, "hi", kName);
    if (p.dtype != "f32" && p.dtype != "i32") throw RunnerError(kName + ": dtype must be f32 or i32, not '" + p.dtype + "'", false);
    if (bins < 1 || bins > 0x7ffffffeLL) throw RunnerError(kName + ": bins must be between 1 and 2^31 - 2", false);
    if (p.n < 0 || p.n > 0x7fffffffLL) throw RunnerError(kName + ": n must be between 0 and 2^31 - 1", false);
    if (!(p.lo < p.hi)) throw RunnerError(kName + ": lo must be below hi", false);
    if (p.dtype == "i32" && (p.lo != std::floor(p.lo) || p.hi != std::floor(p.hi) || p.lo < -2147483648.0 || p.hi > 2147483647.0))
        throw RunnerError(kName + ": for i32 samples lo and hi must be integers of the int range", false);
    p.bins = static_cast<int>(bins);
    return p;
}

class CubHistogram : public BaselineInstance {
public:
    CubHistogram(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const HistogramParams p = readParams(params);
        m_dtype = p.dtype;
        m_bins = p.bins;
        m_n = p.n;
        m_lo = static_cast<float>(p.lo), m_hi = static_cast<float>(p.hi);
        if (m_dtype == "i32") m_loInt = static_cast<int>(p.lo), m_hiInt = static_cast<int>(p.hi);  // in int range: readParams checked
        m_samples = bufferAt(buffers, 0, static_cast<std::size_t>(m_n) * 4, "n samples", kName).ptr;
        m_hist = outputOrOwn(ctx, buffers, static_cast<std::size_t>(m_bins) * sizeof(unsigned int), kName, m_ownHist);
        m_step = std::make_unique<CubStep>(ctx, label(), [this](void* temp, std::size_t& tempBytes) { return call(temp, tempBytes); });
    }

    std::string label() const override { return "CUB DeviceHistogram::HistogramEven " + m_dtype; }
    void run() override { m_step->run(); }

private:
    cudaError_t call(void* temp, std::size_t& tempBytes) const {
        auto* hist = reinterpret_cast<unsigned int*>(lent(m_hist));
        if (m_dtype == "f32")
            return cub::DeviceHistogram::HistogramEven(temp, tempBytes, reinterpret_cast<const float*>(lent(m_samples)), hist, m_bins + 1,
                                                       m_lo, m_hi, m_n);
        return cub::DeviceHistogram::HistogramEven(temp, tempBytes, reinterpret_cast<const int*>(lent(m_samples)), hist, m_bins + 1,
                                                   m_loInt, m_hiInt, m_n);
    }

    std::string m_dtype;
    int m_bins = 0;
    long long m_n = 0;
    float m_lo = 0, m_hi = 1;
    int m_loInt = 0, m_hiInt = 1;
    CUdeviceptr m_samples = 0, m_hist = 0;
    std::unique_ptr<DeviceBuffer> m_ownHist;
    std::unique_ptr<CubStep> m_step;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubHistogram) { return std::make_unique<CubHistogram>(ctx, params, buffers); }

}  // namespace kx::runner
