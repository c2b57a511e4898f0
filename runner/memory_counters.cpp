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

// Ranges per pass: the run's.
constexpr size_t kRanges = 1;

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
        size.maxNumOfRanges = kRanges;
        size.maxNumRangeTreeNodes = kRanges;
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
        set.maxRangesPerPass = kRanges;
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

    void decode() {
        auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        decode.pRangeProfilerObject = profiler;
        api.check(api.cuptiRangeProfilerDecodeData(&decode), "decoding the counters");
        if (decode.numOfRangeDropped > 0) throw CuptiFailure("a profiled range was dropped by CUPTI");
    }

    // The metrics of range `index` (0: the run), after decode().
    std::vector<double> evaluate(size_t index) {
        std::vector<double> values(metrics.size(), 0.0);
        auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = host;
        eval.pCounterDataImage = counterData.data();
        eval.counterDataImageSize = counterData.size();
        eval.rangeIndex = index;
        eval.ppMetricNames = metrics.data();
        eval.numMetrics = metrics.size();
        eval.pMetricValues = values.data();
        api.check(api.cuptiProfilerHostEvaluateToGpuValues(&eval), "evaluating the metrics");
        return values;
    }
};

// A kernel that reads n 32-bit words with ordinary loads and keeps nothing (it stores only when
// the words' xor is a value it never is for all-zero memory, and one word at most), in PTX that
// the driver compiles for whatever GPU this is.
constexpr const char* kFlushPtx = R"(.version 6.0
.target sm_50
.address_size 64
.visible .entry kx_read_to_flush_l2(.param .u64 words, .param .u64 n, .param .u64 sink) {
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [words];
    ld.param.u64 %rd2, [n];
    ld.param.u64 %rd3, [sink];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r2, %r4;
    mov.u32 %r5, 0;
LOOP:
    setp.ge.u64 %p, %rd4, %rd2;
    @%p bra DONE;
    shl.b64 %rd7, %rd4, 2;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.u32 %r6, [%rd8];
    xor.b32 %r5, %r5, %r6;
    add.u64 %rd4, %rd4, %rd6;
    bra LOOP;
DONE:
    setp.ne.u32 %p, %r5, 1234567;
    @%p bra END;
    st.global.u32 [%rd3], %r5;
END:
    ret;
}
)";

// Leaves L2 holding only clean lines of a buffer of ours: a kernel reads twice L2's size, so every
// line written before (the timed runs' outputs, uploads) is written back before the range opens
// and none is left to be written back inside it. The buffer is never written: reads allocate in
// L2 as the kernel's own loads do, which a copy engine's reads (cuMemcpy) need not.
class L2Flusher {
public:
    explicit L2Flusher(DeviceContext& ctx) : m_ctx(ctx) {
        const CudaDriver& d = ctx.driver();
        size_t freeBytes = 0, totalBytes = 0;
        d.cuMemGetInfo(&freeBytes, &totalBytes);
        m_words = std::min(static_cast<size_t>(2 * ctx.info().l2Bytes), freeBytes / 4) / 4;
        if (m_words == 0) return;
        ctx.check(d.cuModuleLoadData(&m_module, kFlushPtx), "loading the L2 flush kernel");
        ctx.check(d.cuModuleGetFunction(&m_kernel, m_module, "kx_read_to_flush_l2"), "finding the L2 flush kernel");
        ctx.check(d.cuMemAlloc(&m_buffer, m_words * 4), "allocating the L2 flush buffer");
        ctx.check(d.cuMemAlloc(&m_sink, 4), "allocating the L2 flush kernel's sink");
    }
    ~L2Flusher() {
        const CudaDriver& d = m_ctx.driver();
        if (m_sink) d.cuMemFree(m_sink);
        if (m_buffer) d.cuMemFree(m_buffer);
        if (m_module) d.cuModuleUnload(m_module);
    }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    void flush() {
        if (!m_kernel) return;
        unsigned long long words = m_words;
        void* params[] = {&m_buffer, &words, &m_sink};
        const unsigned blocks = static_cast<unsigned>(std::max(1, m_ctx.info().smCount) * 4);
        m_ctx.check(m_ctx.driver().cuLaunchKernel(m_kernel, blocks, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr), "flushing L2");
        m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "flushing L2");
    }

private:
    DeviceContext& m_ctx;
    CUmodule m_module = nullptr;
    CUfunction m_kernel = nullptr;
    CUdeviceptr m_buffer = 0, m_sink = 0;
    size_t m_words = 0;
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
            complete = session.pass(runOnce);
            ctx.check(ctx.driver().cuCtxSynchronize(), "running the counted kernel");
        }
        session.decode();
        const std::vector<double> values = session.evaluate(0);
        nlohmann::json metrics = nlohmann::json::object();
        for (size_t i = 0; i < values.size(); ++i) metrics[kMemoryCounterMetrics[i]] = values[i];
        return {{"dram_read_bytes", values[0]}, {"dram_write_bytes", values[1]}, {"l2_bytes", values[2]}, {"l1_bytes", values[3]},
                {"passes", passes},           {"passes_planned", passesNeeded}, {"metrics", metrics}};
    } catch (const CuptiFailure& failure) {
        return {{"error", failure.what()}};
    }
}

}  // namespace kx::runner
