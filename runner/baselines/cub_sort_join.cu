// "cub_sort_join": the join template's inner join done as a sort-merge join built from CUB:
// DeviceRadixSort::SortPairs sorts the build side (keys, payloads) and the probe side (keys, row
// numbers), then a small kernel of ours (not CUB's) merges them: each sorted probe key finds its
// run of equal build keys by binary search in the sorted build keys (adjacent threads search
// adjacent keys, so their searches share cache lines), and each match reserves an output slot
// with one atomicAdd per warp. The two sorts and the merge are timed together, as one run (the
// probe rows' numbers 0..np-1, sorted along with their keys, are written once, untimed).
//
//   params   nb  build rows
//            np  probe rows
//   buffers  bkeys (nb x i32), bvals (nb x i32), pkeys (np x i32)
//   output   none: the pairs (probe row, build payload) and their count go to buffers of its own
//            (np pairs at most, enough when build keys are unique), in sorted-key order.
#include "baselines/baseline_factories.hpp"
#include "baselines/cub_step.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>

namespace kx::runner {
namespace {

__global__ void iotaKernel(int* out, int n) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) out[i] = static_cast<int>(i);
}

// A device buffer's address as a typed pointer.
template <class T>
T* as(const std::optional<DeviceBuffer>& buffer) {
    return reinterpret_cast<T*>(buffer->ptr);
}

// One thread per sorted probe key: the first build position whose key is not smaller (lower
// bound), then every equal build key after it. Output slots come one atomicAdd per warp per
// round of matches; pairs past the capacity are dropped (the count still says how many there were).
__global__ void mergeJoinKernel(const int* __restrict__ buildKeys, const int* __restrict__ buildVals, int nb,
                                const int* __restrict__ probeKeys, const int* __restrict__ probeRows, int np, int* __restrict__ outRows,
                                int* __restrict__ outVals, unsigned* __restrict__ count, unsigned capacity) {
    const unsigned lane = threadIdx.x % 32, lanesBelow = (1u << lane) - 1u;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    // The loop bound is rounded up to whole warps so every lane reaches the ballots.
    const long long end = (static_cast<long long>(np) + 31) / 32 * 32;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < end; i += stride) {
        const bool active = i < np;
        const int key = active ? probeKeys[i] : 0;
        int lo = 0, hi = active ? nb : 0;
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (buildKeys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        const int row = active ? probeRows[i] : 0;
        for (int j = lo;; ++j) {
            const bool hit = active && j < nb && buildKeys[j] == key;
            const unsigned hits = __ballot_sync(0xffffffffu, hit);
            if (hits == 0) break;
            const int leader = __ffs(hits) - 1;
            unsigned first = 0;
            if (static_cast<int>(lane) == leader) first = atomicAdd(count, static_cast<unsigned>(__popc(hits)));
            first = __shfl_sync(0xffffffffu, first, leader);
            const unsigned pos = first + __popc(hits & lanesBelow);
            if (hit && pos < capacity) {
                outRows[pos] = row;
                outVals[pos] = buildVals[j];
            }
        }
    }
}

class CubSortJoin : public BaselineInstance {
public:
    CubSortJoin(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "cub_sort_join";
        const long long nb = paramInt(params, "nb", name), np = paramInt(params, "np", name);
        m_nb = static_cast<int>(nb);
        m_np = static_cast<int>(np);
        if (nb < 1 || nb > 0x7fffffffLL || np < 1 || np > 0x7fffffffLL)
            throw RunnerError(name + ": nb and np must be between 1 and 2^31 - 1", false);
        const std::size_t buildBytes = static_cast<std::size_t>(nb) * 4, probeBytes = static_cast<std::size_t>(np) * 4;
        const BaselineArg& bkeys = bufferAt(buffers, 0, name);
        const BaselineArg& bvals = bufferAt(buffers, 1, name);
        const BaselineArg& pkeys = bufferAt(buffers, 2, name);
        if (bkeys.bytes < buildBytes || bvals.bytes < buildBytes || pkeys.bytes < probeBytes)
            throw RunnerError(name + ": a buffer is smaller than nb (bkeys, bvals) or np (pkeys) elements", false);
        m_bkeys = bkeys.ptr;
        m_bvals = bvals.ptr;
        m_pkeys = pkeys.ptr;
        m_sortedBuildKeys.emplace(ctx, buildBytes);
        m_sortedBuildVals.emplace(ctx, buildBytes);
        m_probeRows.emplace(ctx, probeBytes);
        m_sortedProbeKeys.emplace(ctx, probeBytes);
        m_sortedProbeRows.emplace(ctx, probeBytes);
        m_outRows.emplace(ctx, probeBytes);
        m_outVals.emplace(ctx, probeBytes);
        m_count.emplace(ctx, sizeof(unsigned));
        m_sorts.emplace(
            ctx,
            std::vector<CubSequence::Step>{
                {"sizing the build sort", "sorting the build side", [this](void* temp, std::size_t& bytes) { return sortBuild(temp, bytes); }},
                {"sizing the probe sort", "sorting the probe side", [this](void* temp, std::size_t& bytes) { return sortProbe(temp, bytes); }}},
            check);
        // The probe rows' numbers, sorted along with their keys; the sort only reads them, so once is enough.
        iotaKernel<<<1024, 256>>>(as<int>(m_probeRows), m_np);
        check(cudaGetLastError(), "numbering the probe rows");
    }

    std::string label() const override { return "CUB SortPairs x2 + merge join i32"; }
    void run() override {
        m_sorts->run();
        check(cudaMemsetAsync(reinterpret_cast<void*>(m_count->ptr), 0, sizeof(unsigned)), "clearing the count");
        const int blocks = static_cast<int>(std::min<long long>((static_cast<long long>(m_np) + 255) / 256, 4096));
        mergeJoinKernel<<<blocks, 256>>>(as<int>(m_sortedBuildKeys), as<int>(m_sortedBuildVals), m_nb, as<int>(m_sortedProbeKeys),
                                         as<int>(m_sortedProbeRows), m_np, as<int>(m_outRows), as<int>(m_outVals), as<unsigned>(m_count),
                                         static_cast<unsigned>(m_np));
        check(cudaGetLastError(), "merging");
    }

private:
    // With temp == nullptr, only sets bytes.
    cudaError_t sortBuild(void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, reinterpret_cast<const int*>(lent(m_bkeys)), as<int>(m_sortedBuildKeys),
                                               reinterpret_cast<const int*>(lent(m_bvals)), as<int>(m_sortedBuildVals), m_nb);
    }
    cudaError_t sortProbe(void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, reinterpret_cast<const int*>(lent(m_pkeys)), as<int>(m_sortedProbeKeys),
                                               as<const int>(m_probeRows), as<int>(m_sortedProbeRows), m_np);
    }
    static void check(cudaError_t status, const char* what) {
        if (status != cudaSuccess)
            throw RunnerError(std::string("CUB sort-merge join failed ") + what + ": " + cudaGetErrorString(status), true);
    }

    int m_nb = 0, m_np = 0;
    CUdeviceptr m_bkeys = 0, m_bvals = 0, m_pkeys = 0;
    std::optional<DeviceBuffer> m_sortedBuildKeys, m_sortedBuildVals, m_probeRows, m_sortedProbeKeys, m_sortedProbeRows;
    std::optional<DeviceBuffer> m_outRows, m_outVals, m_count;
    std::optional<CubSequence> m_sorts;
};

}  // namespace

KX_BASELINE_FACTORY(makeCubSortJoin) { return std::make_unique<CubSortJoin>(ctx, params, buffers); }

}  // namespace kx::runner
