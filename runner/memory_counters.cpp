#include "memory_counters.hpp"

#include "cupti_library.hpp"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace kx::runner {

namespace {

// A CUPTI parameter block: zeroed, with its size set, as every CUPTI call wants it.
template <class Params>
Params params(size_t structSize) {
    Params p{};
    p.structSize = structSize;
    return p;
}

// A CUPTI call that failed: the counters cannot be had, the run itself stands.
class CuptiFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The Range Profiler's entry points (CUDA 12.6 and later), resolved from libcupti.
struct RangeApi {
    const CuptiLibrary* library = nullptr;
#define KX_CUPTI_FN(name) decltype(&::name) name = nullptr
    KX_CUPTI_FN(cuptiProfilerInitialize);
    KX_CUPTI_FN(cuptiProfilerDeInitialize);
    KX_CUPTI_FN(cuptiDeviceGetChipName);
    KX_CUPTI_FN(cuptiProfilerGetCounterAvailability);
    KX_CUPTI_FN(cuptiProfilerHostInitialize);
    KX_CUPTI_FN(cuptiProfilerHostDeinitialize);
    KX_CUPTI_FN(cuptiProfilerHostConfigAddMetrics);
    KX_CUPTI_FN(cuptiProfilerHostGetConfigImageSize);
    KX_CUPTI_FN(cuptiProfilerHostGetConfigImage);
    KX_CUPTI_FN(cuptiProfilerHostGetNumOfPasses);
    KX_CUPTI_FN(cuptiProfilerHostEvaluateToGpuValues);
    KX_CUPTI_FN(cuptiRangeProfilerEnable);
    KX_CUPTI_FN(cuptiRangeProfilerDisable);
    KX_CUPTI_FN(cuptiRangeProfilerGetCounterDataSize);
    KX_CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize);
    KX_CUPTI_FN(cuptiRangeProfilerSetConfig);
    KX_CUPTI_FN(cuptiRangeProfilerStart);
    KX_CUPTI_FN(cuptiRangeProfilerStop);
    KX_CUPTI_FN(cuptiRangeProfilerPushRange);
    KX_CUPTI_FN(cuptiRangeProfilerPopRange);
    KX_CUPTI_FN(cuptiRangeProfilerDecodeData);
#undef KX_CUPTI_FN

    bool load(std::string* error) {
        library = CuptiLibrary::open("Hardware counters", error);
        if (!library) return false;
        bool complete = true;
        auto resolve = [&](auto& fn, const char* name) { complete = library->resolve(fn, name) && complete; };
        resolve(cuptiProfilerInitialize, "cuptiProfilerInitialize");
        resolve(cuptiProfilerDeInitialize, "cuptiProfilerDeInitialize");
        resolve(cuptiDeviceGetChipName, "cuptiDeviceGetChipName");
        resolve(cuptiProfilerGetCounterAvailability, "cuptiProfilerGetCounterAvailability");
        resolve(cuptiProfilerHostInitialize, "cuptiProfilerHostInitialize");
        resolve(cuptiProfilerHostDeinitialize, "cuptiProfilerHostDeinitialize");
        resolve(cuptiProfilerHostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics");
        resolve(cuptiProfilerHostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize");
        resolve(cuptiProfilerHostGetConfigImage, "cuptiProfilerHostGetConfigImage");
        resolve(cuptiProfilerHostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses");
        resolve(cuptiProfilerHostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues");
        resolve(cuptiRangeProfilerEnable, "cuptiRangeProfilerEnable");
        resolve(cuptiRangeProfilerDisable, "cuptiRangeProfilerDisable");
        resolve(cuptiRangeProfilerGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize");
        resolve(cuptiRangeProfilerCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize");
        resolve(cuptiRangeProfilerSetConfig, "cuptiRangeProfilerSetConfig");
        resolve(cuptiRangeProfilerStart, "cuptiRangeProfilerStart");
        resolve(cuptiRangeProfilerStop, "cuptiRangeProfilerStop");
        resolve(cuptiRangeProfilerPushRange, "cuptiRangeProfilerPushRange");
        resolve(cuptiRangeProfilerPopRange, "cuptiRangeProfilerPopRange");
        resolve(cuptiRangeProfilerDecodeData, "cuptiRangeProfilerDecodeData");
        if (!complete) *error = "this libcupti has no Range Profiler (CUDA 12.6 or later is needed for hardware counters)";
        return complete;
    }

    void check(CUptiResult status, const char* what) const {
        if (status != CUPTI_SUCCESS) throw CuptiFailure(std::string(what) + " failed: " + library->describe(status));
    }
};

// What CUPTI holds between enabling and the end of the measurement, released in reverse.
struct RangeSession {
    const RangeApi& api;
    bool initialized = false;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* profiler = nullptr;
    std::vector<const char*> metrics{std::begin(kMemoryCounterMetrics), std::end(kMemoryCounterMetrics)};
    std::vector<uint8_t> config;
    std::vector<uint8_t> counterData;

    explicit RangeSession(const RangeApi& a) : api(a) {}
    RangeSession(const RangeSession&) = delete;
    RangeSession& operator=(const RangeSession&) = delete;
    ~RangeSession() {
        if (profiler) {
            auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
            p.pRangeProfilerObject = profiler;
            api.cuptiRangeProfilerDisable(&p);
        }
        if (host) {
            auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
            p.pHostObject = host;
            api.cuptiProfilerHostDeinitialize(&p);
        }
        if (initialized) {
            auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
            api.cuptiProfilerDeInitialize(&p);
        }
    }

    // The host side: the chip's counters available on this context, and the configuration image
    // that programs them for our metrics. Returns the number of passes it needs.
    size_t configureHost(DeviceContext& ctx) {
        auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        api.check(api.cuptiProfilerInitialize(&init), "initialising CUPTI's profiler");
        initialized = true;
        auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
        chip.deviceIndex = static_cast<size_t>(ctx.info().index);
        api.check(api.cuptiDeviceGetChipName(&chip), "naming the GPU's chip");
        auto availability = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
        availability.ctx = ctx.context();
        api.check(api.cuptiProfilerGetCounterAvailability(&availability), "asking which counters are available");
        std::vector<uint8_t> image(availability.counterAvailabilityImageSize);
        availability.pCounterAvailabilityImage = image.data();
        api.check(api.cuptiProfilerGetCounterAvailability(&availability), "reading which counters are available");

        auto hostInit = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        hostInit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hostInit.pChipName = chip.pChipName;
        hostInit.pCounterAvailabilityImage = image.data();
        api.check(api.cuptiProfilerHostInitialize(&hostInit), "initialising the metric evaluator");
        host = hostInit.pHostObject;
        auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
        add.pHostObject = host;
        add.ppMetricNames = metrics.data();
        add.numMetrics = metrics.size();
        api.check(api.cuptiProfilerHostConfigAddMetrics(&add), "adding the memory metrics");
        auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        size.pHostObject = host;
        api.check(api.cuptiProfilerHostGetConfigImageSize(&size), "sizing the counter configuration");
        config.resize(size.configImageSize);
        auto get = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        get.pHostObject = host;
        get.configImageSize = config.size();
        get.pConfigImage = config.data();
        api.check(api.cuptiProfilerHostGetConfigImage(&get), "making the counter configuration");
        auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
        passes.configImageSize = config.size();
        passes.pConfigImage = config.data();
        api.check(api.cuptiProfilerHostGetNumOfPasses(&passes), "counting the passes");
        return passes.numOfPasses;
    }

    // The target side: one user range, replayed by us once per pass.
    void configureTarget(DeviceContext& ctx) {
        auto enable = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        enable.ctx = ctx.context();
        api.check(api.cuptiRangeProfilerEnable(&enable), "enabling the range profiler");
        profiler = enable.pRangeProfilerObject;
        auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        size.pRangeProfilerObject = profiler;
        size.pMetricNames = metrics.data();
        size.numMetrics = metrics.size();
        size.maxNumOfRanges = 1;
        size.maxNumRangeTreeNodes = 1;
        api.check(api.cuptiRangeProfilerGetCounterDataSize(&size), "sizing the counter data");
        counterData.assign(size.counterDataSize, 0);
        auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        init.pRangeProfilerObject = profiler;
        init.counterDataSize = counterData.size();
        init.pCounterData = counterData.data();
        api.check(api.cuptiRangeProfilerCounterDataImageInitialize(&init), "preparing the counter data");
        auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        set.pRangeProfilerObject = profiler;
        set.configSize = config.size();
        set.pConfig = config.data();
        set.counterDataImageSize = counterData.size();
        set.pCounterDataImage = counterData.data();
        set.range = CUPTI_UserRange;
        set.replayMode = CUPTI_UserReplay;
        set.maxRangesPerPass = 1;
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        api.check(api.cuptiRangeProfilerSetConfig(&set), "configuring the range profiler");
    }

    // One pass: the range holds exactly one run. Returns whether CUPTI has every pass it needs.
    bool pass(const std::function<void()>& runOnce) {
        auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        start.pRangeProfilerObject = profiler;
        api.check(api.cuptiRangeProfilerStart(&start), "starting the range profiler");
        auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
        push.pRangeProfilerObject = profiler;
        push.pRangeName = "run";
        api.check(api.cuptiRangeProfilerPushRange(&push), "opening the range");
        runOnce();
        auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
        pop.pRangeProfilerObject = profiler;
        api.check(api.cuptiRangeProfilerPopRange(&pop), "closing the range");
        auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        stop.pRangeProfilerObject = profiler;
        api.check(api.cuptiRangeProfilerStop(&stop), "stopping the range profiler");
        return stop.isAllPassSubmitted != 0;
    }

    std::vector<double> evaluate() {
        auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        decode.pRangeProfilerObject = profiler;
        api.check(api.cuptiRangeProfilerDecodeData(&decode), "decoding the counters");
        if (decode.numOfRangeDropped > 0) throw CuptiFailure("the profiled range was dropped by CUPTI");
        std::vector<double> values(metrics.size(), 0.0);
        auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = host;
        eval.pCounterDataImage = counterData.data();
        eval.counterDataImageSize = counterData.size();
        eval.rangeIndex = 0;
        eval.ppMetricNames = metrics.data();
        eval.numMetrics = metrics.size();
        eval.pMetricValues = values.data();
        api.check(api.cuptiProfilerHostEvaluateToGpuValues(&eval), "evaluating the metrics");
        return values;
    }
};

// Evicts L2 by reading a buffer twice its size into host memory (reads, so that no dirty line
// of ours is left to be written back during the next range). The buffer is zeroed once, when
// allocated, and never written again.
class L2Flusher {
public:
    explicit L2Flusher(DeviceContext& ctx) : m_ctx(ctx) {
        size_t freeBytes = 0, totalBytes = 0;
        ctx.driver().cuMemGetInfo(&freeBytes, &totalBytes);
        m_bytes = std::min(static_cast<size_t>(2 * ctx.info().l2Bytes), freeBytes / 4);
        if (m_bytes == 0) return;
        ctx.check(ctx.driver().cuMemAlloc(&m_buffer, m_bytes), "allocating the L2 flush buffer");
        ctx.check(ctx.driver().cuMemsetD8(m_buffer, 0, m_bytes), "zeroing the L2 flush buffer");
        m_host.resize(m_bytes);
    }
    ~L2Flusher() {
        if (m_buffer) m_ctx.driver().cuMemFree(m_buffer);
    }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    void flush() {
        if (m_buffer) m_ctx.check(m_ctx.driver().cuMemcpyDtoH(m_host.data(), m_buffer, m_bytes), "flushing L2");
    }

private:
    DeviceContext& m_ctx;
    CUdeviceptr m_buffer = 0;
    size_t m_bytes = 0;
    std::vector<char> m_host;
};

}  // namespace

nlohmann::json measureMemoryCounters(DeviceContext& ctx, const std::function<void()>& prepare, const std::function<void()>& runOnce) {
    RangeApi api;
    std::string error;
    if (!api.load(&error)) return {{"error", error}};
    try {
        ctx.check(ctx.driver().cuCtxSynchronize(), "finishing the work before counting");
        RangeSession session(api);
        const size_t passesNeeded = session.configureHost(ctx);
        session.configureTarget(ctx);
        L2Flusher flusher(ctx);
        int passes = 0;
        for (bool complete = false; !complete; ++passes) {
            if (passes >= 64) throw CuptiFailure("the counters needed more than 64 passes");
            prepare();
            flusher.flush();
            ctx.check(ctx.driver().cuCtxSynchronize(), "preparing a counted run");
            complete = session.pass(runOnce);
            ctx.check(ctx.driver().cuCtxSynchronize(), "running the counted kernel");
        }
        const std::vector<double> values = session.evaluate();
        nlohmann::json metrics = nlohmann::json::object();
        for (size_t i = 0; i < values.size(); ++i) metrics[kMemoryCounterMetrics[i]] = values[i];
        return {{"dram_read_bytes", values[0]}, {"dram_write_bytes", values[1]}, {"l2_bytes", values[2]}, {"l1_bytes", values[3]},
                {"passes", passes},           {"passes_planned", passesNeeded}, {"metrics", metrics}};
    } catch (const CuptiFailure& failure) {
        return {{"error", failure.what()}};
    }
}

}  // namespace kx::runner
