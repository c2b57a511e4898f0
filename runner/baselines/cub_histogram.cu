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

class CubHistogram : public BaselineInstance {
public:
    CubHistogram(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "cub_histogram";
        m_dtype = paramText(params, "dtype", name);
        const long long bins = paramInt(params, "bins", name), n = paramInt(params, "n", name);
        const double lo = paramNumber(params, "lo", name), hi = paramNumber(params, "hi", name);
        m_bins = static_cast<int>(bins);
        m_n = n;
        if (m_dtype != "f32" && m_dtype != "i32") throw RunnerError(name + ": dtype must be f32 or i32, not '" + m_dtype + "'", false);
        if (bins < 1 || bins > 0x7ffffffeLL) throw RunnerError(name + ": bins must be between 1 and 2^31 - 2", false);
        if (n < 0 || n > 0x7fffffffLL) throw RunnerError(name + ": n must be between 0 and 2^31 - 1", false);
        if (!(lo < hi)) throw RunnerError(name + ": lo must be below hi", false);
        if (m_dtype == "i32") {
            if (lo != std::floor(lo) || hi != std::floor(hi) || lo < -2147483648.0 || hi > 2147483647.0)
                throw RunnerError(name + ": for i32 samples lo and hi must be integers of the int range", false);
            m_loInt = static_cast<int>(lo);
            m_hiInt = static_cast<int>(hi);
        }
        m_lo = static_cast<float>(lo);
        m_hi = static_cast<float>(hi);

        m_samples = bufferAt(buffers, 0, static_cast<std::size_t>(n) * 4, "n samples", name).ptr;
        m_hist = outputOrOwn(ctx, buffers, static_cast<std::size_t>(m_bins) * sizeof(unsigned int), name, m_ownHist);
        m_step = std::make_unique<CubStep>(ctx, label(), [this](void* temp, std::size_t& tempBytes) { return call(temp, tempBytes); });
    }

    std::string label() const override { return "CUB DeviceHistogram::HistogramEven " + m_dtype; }
    void run() override { m_step->run(); }

private:
    cudaError_t call(void* temp, std::size_t& tempBytes) const {
        auto* hist = reinterpret_cast<unsigned int*>(m_hist);
        if (m_dtype == "f32")
            return cub::DeviceHistogram::HistogramEven(temp, tempBytes, reinterpret_cast<const float*>(m_samples), hist, m_bins + 1,
                                                       m_lo, m_hi, m_n);
        return cub::DeviceHistogram::HistogramEven(temp, tempBytes, reinterpret_cast<const int*>(m_samples), hist, m_bins + 1,
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
