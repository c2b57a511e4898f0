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

// The Range Profiler's entry points (CUDA 12.6 and later), each named once (cupti_library.hpp).
#define KX_RANGE_PROFILER_FNS(X) \
    X(cuptiProfilerInitialize) \
    X(cuptiProfilerDeInitialize) \
    X(cuptiDeviceGetChipName) \
    X(cuptiProfilerGetCounterAvailability) \
    X(cuptiProfilerHostInitialize) \
    X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostConfigAddMetrics) \
    X(cuptiProfilerHostGetConfigImageSize) \
    X(cuptiProfilerHostGetConfigImage) \
    X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostEvaluateToGpuValues) \
    X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) \
    X(cuptiRangeProfilerGetCounterDataSize) \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerSetConfig) \
    X(cuptiRangeProfilerStart) \
    X(cuptiRangeProfilerStop) \
    X(cuptiRangeProfilerPushRange) \
    X(cuptiRangeProfilerPopRange) \
    X(cuptiRangeProfilerDecodeData)

// The Range Profiler's entry points, resolved from libcupti.
struct RangeApi {
    KX_CUPTI_ENTRY_POINTS(KX_RANGE_PROFILER_FNS, "Hardware counters",
                          "this libcupti has no Range Profiler (CUDA 12.6 or later is needed for hardware counters)")

    void check(CUptiResult status, const char* what) const {
        if (status != CUPTI_SUCCESS) throw CuptiFailure(std::string(what) + " failed: " + library->describe(status));
    }

    // Calls fn with a parameter block that `fill` completes, throwing CuptiFailure naming `what`
    // when it fails; returns the block, with what CUPTI wrote into it.
    template <class Params, class Fill>
    Params call(CUptiResult (*fn)(Params*), size_t structSize, const char* what, Fill fill) const {
        auto p = params<Params>(structSize);
        fill(p);
        check(fn(&p), what);
        return p;
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
        api.call(api.cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params_STRUCT_SIZE, "initialising CUPTI's profiler", [](auto&) {});
        initialized = true;
        const auto chip = api.call(api.cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params_STRUCT_SIZE, "naming the GPU's chip",
                                   [&](auto& p) { p.deviceIndex = static_cast<size_t>(ctx.info().index); });
        auto availability = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
        availability.ctx = ctx.context();
        api.check(api.cuptiProfilerGetCounterAvailability(&availability), "asking which counters are available");
        std::vector<uint8_t> image(availability.counterAvailabilityImageSize);
        availability.pCounterAvailabilityImage = image.data();
        api.check(api.cuptiProfilerGetCounterAvailability(&availability), "reading which counters are available");

        host = api.call(api.cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, "initialising the metric evaluator",
                        [&](auto& p) {
                            p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
                            p.pChipName = chip.pChipName;
                            p.pCounterAvailabilityImage = image.data();
                        })
                   .pHostObject;
        api.call(api.cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, "adding the memory metrics",
                 [&](auto& p) {
                     p.pHostObject = host;
                     p.ppMetricNames = metrics.data();
                     p.numMetrics = metrics.size();
                 });
        config.resize(api.call(api.cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
                               "sizing the counter configuration", [&](auto& p) { p.pHostObject = host; })
                          .configImageSize);
        api.call(api.cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, "making the counter configuration",
                 [&](auto& p) {
                     p.pHostObject = host;
                     p.configImageSize = config.size();
                     p.pConfigImage = config.data();
                 });
        return api.call(api.cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, "counting the passes",
                        [&](auto& p) {
                            p.configImageSize = config.size();
                            p.pConfigImage = config.data();
                        })
            .numOfPasses;
    }

    // The target side: one user range, replayed by us once per pass.
    void configureTarget(DeviceContext& ctx) {
        profiler = api.call(api.cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, "enabling the range profiler",
                            [&](auto& p) { p.ctx = ctx.context(); })
                       .pRangeProfilerObject;
        const auto size = onProfiler(api.cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
                                     "sizing the counter data", [&](auto& p) {
                                         p.pMetricNames = metrics.data();
                                         p.numMetrics = metrics.size();
                                         p.maxNumOfRanges = kRanges;
                                         p.maxNumRangeTreeNodes = kRanges;
                                     });
        counterData.assign(size.counterDataSize, 0);
        onProfiler(api.cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
                   "preparing the counter data", [&](auto& p) {
                       p.counterDataSize = counterData.size();
                       p.pCounterData = counterData.data();
                   });
        onProfiler(api.cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, "configuring the range profiler",
                   [&](auto& p) {
                       p.configSize = config.size();
                       p.pConfig = config.data();
                       p.counterDataImageSize = counterData.size();
                       p.pCounterDataImage = counterData.data();
                       p.range = CUPTI_UserRange;
                       p.replayMode = CUPTI_UserReplay;
                       p.maxRangesPerPass = kRanges;
                       p.numNestingLevels = 1;
                       p.minNestingLevel = 1;
                       p.passIndex = 0;
                       p.targetNestingLevel = 1;
                   });
    }

    // One pass: the range holds exactly one run. Returns whether CUPTI has every pass it needs.
    bool pass(const std::function<void()>& runOnce) {
        onProfiler(api.cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, "starting the range profiler");
        onProfiler(api.cuptiRangeProfilerPushRange, CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, "opening the range",
                   [](auto& p) { p.pRangeName = "run"; });
        runOnce();
        onProfiler(api.cuptiRangeProfilerPopRange, CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, "closing the range");
        const auto stop = onProfiler(api.cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, "stopping the range profiler");
        return stop.isAllPassSubmitted != 0;
    }

    void decode() {
        const auto decode = onProfiler(api.cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, "decoding the counters");
        if (decode.numOfRangeDropped > 0) throw CuptiFailure("a profiled range was dropped by CUPTI");
    }

    // The metrics of range `index` (0: the run), after decode().
    std::vector<double> evaluate(size_t index) {
        std::vector<double> values(metrics.size(), 0.0);
        api.call(api.cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, "evaluating the metrics",
                 [&](auto& p) {
                     p.pHostObject = host;
                     p.pCounterDataImage = counterData.data();
                     p.counterDataImageSize = counterData.size();
                     p.rangeIndex = index;
                     p.ppMetricNames = metrics.data();
                     p.numMetrics = metrics.size();
                     p.pMetricValues = values.data();
                 });
        return values;
    }

private:
    // A call on the range profiler object: `fill` adds what the call needs beyond it.
    template <class Params, class Fill = void (*)(Params&)>
    Params onProfiler(CUptiResult (*fn)(Params*), size_t structSize, const char* what, Fill fill = [](Params&) {}) {
        return api.call(fn, structSize, what, [&](Params& p) {
            p.pRangeProfilerObject = profiler;
            fill(p);
        });
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
