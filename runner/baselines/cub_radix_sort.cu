// "cub_radix_sort": CUB's DeviceRadixSort over the radix_sort template's input, 32-bit unsigned
// keys, alone (SortKeys) or with 32-bit values (SortPairs).
//
//   params   pairs      0: keys only; 1: key-value pairs
//            n          number of keys
//            begin_bit  first key bit to sort by (0 for the whole key)
//            end_bit    one past the last key bit (32 for the whole key)
//   buffers  keys (n x u32) [, values (n x u32), when pairs is 1]
//   output   the sorted keys, when the manifest asks (output="keys_out"); the sorted values go to
//            a buffer of its own.
//
// The input buffers are only read (the overloads with separate input and output pointers, not
// the DoubleBuffer ones that would sort in place), so the kernel's inputs stay as uploaded.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <memory>
#include <tuple>
#include <utility>

namespace kx::runner {
namespace {

const std::string kName = "cub_radix_sort";

// begin_bit and end_bit, checked: the key bits sorted on.
std::pair<int, int> bitRange(const nlohmann::json& params) {
    const long long beginBit = paramInt(params, "begin_bit", kName), endBit = paramInt(params, "end_bit", kName);
    if (beginBit < 0 || endBit > 32 || beginBit >= endBit) throw RunnerError(kName + ": need 0 <= begin_bit < end_bit <= 32", false);
    return {static_cast<int>(beginBit), static_cast<int>(endBit)};
}

class CubRadixSort : public BaselineInstance {
public:
    CubRadixSort(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers)
        : m_pairs(paramInt(params, "pairs", kName) != 0), m_n(paramInt(params, "n", kName)) {
        if (m_n < 0 || m_n > 0x7fffffffLL) throw RunnerError(kName + ": n must be between 0 and 2^31 - 1", false);
        std::tie(m_beginBit, m_endBit) = bitRange(params);
        const std::size_t bytes = static_cast<std::size_t>(m_n) * sizeof(unsigned);
        m_keysIn = bufferAt(buffers, 0, bytes, "n keys", kName).ptr;
        if (m_pairs) {
            m_valuesIn = bufferAt(buffers, 1, bytes, "n values", kName).ptr;
            m_valuesOut = std::make_unique<DeviceBuffer>(ctx, bytes);
        }
        m_keysOut = outputOrOwn(ctx, buffers, bytes, kName, m_ownKeysOut);
        m_step = std::make_unique<CubStep>(ctx, label(), [this](void* temp, std::size_t& tempBytes) { return call(temp, tempBytes); });
    }

    std::string label() const override { return m_pairs ? "CUB DeviceRadixSort::SortPairs u32" : "CUB DeviceRadixSort::SortKeys u32"; }
    void run() override { m_step->run(); }

private:
    cudaError_t call(void* temp, std::size_t& tempBytes) const {
        auto* keysIn = reinterpret_cast<const unsigned*>(lent(m_keysIn));
        auto* keysOut = reinterpret_cast<unsigned*>(lent(m_keysOut));
        if (!m_pairs) return cub::DeviceRadixSort::SortKeys(temp, tempBytes, keysIn, keysOut, m_n, m_beginBit, m_endBit);
        return cub::DeviceRadixSort::SortPairs(temp, tempBytes, keysIn, keysOut, reinterpret_cast<const unsigned*>(lent(m_valuesIn)),
                                               reinterpret_cast<unsigned*>(m_valuesOut->ptr), m_n, m_beginBit, m_endBit);
    }

    bool m_pairs = false;
    long long m_n = 0;
    int m_beginBit = 0, m_endBit = 0;
    CUdeviceptr m_keysIn = 0, m_valuesIn = 0, m_keysOut = 0;
    std::unique_ptr<DeviceBuffer> m_ownKeysOut, m_valuesOut;
    std::unique_ptr<CubStep> m_step;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubRadixSort) { return std::make_unique<CubRadixSort>(ctx, params, buffers); }

}  // namespace kx::runner
