// "cub_reduce_by_key": group-by the way a CUB user would write it, sort then reduce runs, for the
// group_by template: DeviceRadixSort::SortPairs by key (all 32 key bits), then
// DeviceReduce::ReduceByKey over the sorted runs (sum, min, max in fp32); for count,
// DeviceRadixSort::SortKeys then DeviceRunLengthEncode::Encode (the run lengths are the counts).
// Both steps are timed together, as one run.
//
//   params   n    number of rows
//            agg  sum, count, min or max
//   buffers  keys (n x i32), values (n x f32; not read for count)
//   output   none: the result is dense (unique keys, aggregates, number of groups), not the
//            template's hash table, so the manifest asks for no output.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"
#include "baselines/float_operators.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>

namespace kx::runner {
namespace {

class CubReduceByKey : public BaselineInstance {
public:
    CubReduceByKey(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "cub_reduce_by_key";
        const long long n = paramInt(params, "n", name);
        m_n = n;
        m_agg = paramText(params, "agg", name);
        if (m_agg != "sum" && m_agg != "count" && m_agg != "min" && m_agg != "max")
            throw RunnerError(name + ": agg must be sum, count, min or max", false);
        if (n < 0 || n > 0x7fffffffLL) throw RunnerError(name + ": n must be between 0 and 2^31 - 1", false);
        const std::size_t bytes = static_cast<std::size_t>(n) * 4;
        const BaselineArg& keys = bufferAt(buffers, 0, name);
        if (keys.bytes < bytes) throw RunnerError(name + ": the keys buffer is smaller than n keys", false);
        m_keys = keys.ptr;
        if (m_agg != "count") {
            const BaselineArg& values = bufferAt(buffers, 1, name);
            if (values.bytes < bytes) throw RunnerError(name + ": the values buffer is smaller than n values", false);
            m_values = values.ptr;
            m_sortedValues.emplace(ctx, bytes);
        }
        m_sortedKeys.emplace(ctx, bytes);
        m_uniqueKeys.emplace(ctx, bytes);
        m_aggregates.emplace(ctx, bytes);
        m_numRuns.emplace(ctx, sizeof(int));
        m_steps.emplace(ctx,
                        std::vector<CubSequence::Step>{
                            {"sizing the sort", "sorting", [this](void* temp, std::size_t& bytes) { return sortStep(temp, bytes); }},
                            {"sizing the reduction", "reducing", [this](void* temp, std::size_t& bytes) { return reduceStep(temp, bytes); }}},
                        check);
    }

    std::string label() const override {
        return m_agg == "count" ? "CUB SortKeys + RunLengthEncode i32" : "CUB SortPairs + ReduceByKey i32/f32 " + m_agg;
    }
    void run() override { m_steps->run(); }

private:
    // With temp == nullptr, only sets bytes.
    cudaError_t sortStep(void* temp, std::size_t& bytes) {
        auto* keysIn = reinterpret_cast<const int*>(lent(m_keys));
        auto* keysOut = reinterpret_cast<int*>(m_sortedKeys->ptr);
        if (m_agg == "count") return cub::DeviceRadixSort::SortKeys(temp, bytes, keysIn, keysOut, m_n);
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keysIn, keysOut, reinterpret_cast<const float*>(lent(m_values)),
                                               reinterpret_cast<float*>(m_sortedValues->ptr), m_n);
    }
    cudaError_t reduceStep(void* temp, std::size_t& bytes) {
        auto* sorted = reinterpret_cast<const int*>(m_sortedKeys->ptr);
        auto* unique = reinterpret_cast<int*>(m_uniqueKeys->ptr);
        auto* numRuns = reinterpret_cast<int*>(m_numRuns->ptr);
        const int n = static_cast<int>(m_n);
        if (m_agg == "count")
            return cub::DeviceRunLengthEncode::Encode(temp, bytes, sorted, unique, reinterpret_cast<int*>(m_aggregates->ptr), numRuns, n);
        auto* values = reinterpret_cast<const float*>(m_sortedValues->ptr);
        auto* aggregates = reinterpret_cast<float*>(m_aggregates->ptr);
        if (m_agg == "sum") return cub::DeviceReduce::ReduceByKey(temp, bytes, sorted, unique, values, aggregates, numRuns, SumF{}, n);
        if (m_agg == "min") return cub::DeviceReduce::ReduceByKey(temp, bytes, sorted, unique, values, aggregates, numRuns, MinF{}, n);
        return cub::DeviceReduce::ReduceByKey(temp, bytes, sorted, unique, values, aggregates, numRuns, MaxF{}, n);
    }
    static void check(cudaError_t status, const char* what) {
        if (status == cudaSuccess) status = cudaGetLastError();
        if (status != cudaSuccess)
            throw RunnerError(std::string("CUB reduce-by-key failed ") + what + ": " + cudaGetErrorString(status), true);
    }

    long long m_n = 0;
    std::string m_agg;
    CUdeviceptr m_keys = 0, m_values = 0;
    std::optional<DeviceBuffer> m_sortedKeys, m_sortedValues, m_uniqueKeys, m_aggregates, m_numRuns;
    std::optional<CubSequence> m_steps;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubReduceByKey) { return std::make_unique<CubReduceByKey>(ctx, params, buffers); }

}  // namespace kx::runner
