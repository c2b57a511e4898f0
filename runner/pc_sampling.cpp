#include "pc_sampling.hpp"

#include <cupti_pcsampling.h>
#include <cupti_result.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <set>
#include <vector>

namespace kx::runner {

// The CUPTI entry points sampling needs, resolved from libcupti at run time.
struct PcSampler::Api {
    void* library = nullptr;
    // The buffer CUPTI fills: configured once and written by CUPTI until sampling is disabled,
    // so it lives as long as the sampler.
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<std::vector<CUpti_PCSamplingStallReason>> pcReasons;
    CUpti_PCSamplingData data = {};
#define KX_CUPTI_FN(name) decltype(&::name) name = nullptr
    KX_CUPTI_FN(cuptiGetResultString);
    KX_CUPTI_FN(cuptiPCSamplingEnable);
    KX_CUPTI_FN(cuptiPCSamplingDisable);
    KX_CUPTI_FN(cuptiPCSamplingStart);
    KX_CUPTI_FN(cuptiPCSamplingStop);
    KX_CUPTI_FN(cuptiPCSamplingGetData);
    KX_CUPTI_FN(cuptiPCSamplingSetConfigurationAttribute);
    KX_CUPTI_FN(cuptiPCSamplingGetNumStallReasons);
    KX_CUPTI_FN(cuptiPCSamplingGetStallReasons);
#undef KX_CUPTI_FN

    // KX_CUPTI names the library; else the loader's search path, then the toolkit's folders.
    bool load(std::string* error) {
        std::vector<std::string> candidates;
        if (const char* path = std::getenv("KX_CUPTI")) candidates.push_back(path);
        for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) candidates.push_back(name);
        for (const char* dir : {"/usr/local/cuda/lib64/", "/usr/local/cuda/extras/CUPTI/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"})
            candidates.push_back(std::string(dir) + "libcupti.so");
        for (const std::string& candidate : candidates)
            if ((library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
        if (!library) {
            *error = "PC sampling needs CUPTI (libcupti.so from the CUDA Toolkit), which could not be loaded; set KX_CUPTI to its path";
            return false;
        }
        bool complete = true;
        auto resolve = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
            complete = complete && fn;
        };
        resolve(cuptiGetResultString, "cuptiGetResultString");
        resolve(cuptiPCSamplingEnable, "cuptiPCSamplingEnable");
        resolve(cuptiPCSamplingDisable, "cuptiPCSamplingDisable");
        resolve(cuptiPCSamplingStart, "cuptiPCSamplingStart");
        resolve(cuptiPCSamplingStop, "cuptiPCSamplingStop");
        resolve(cuptiPCSamplingGetData, "cuptiPCSamplingGetData");
        resolve(cuptiPCSamplingSetConfigurationAttribute, "cuptiPCSamplingSetConfigurationAttribute");
        resolve(cuptiPCSamplingGetNumStallReasons, "cuptiPCSamplingGetNumStallReasons");
        resolve(cuptiPCSamplingGetStallReasons, "cuptiPCSamplingGetStallReasons");
        if (!complete) *error = "this libcupti has no PC Sampling API (CUDA 11.3 or later is needed)";
        return complete;
    }

    std::string describe(CUptiResult status) const {
        const char* text = nullptr;
        if (cuptiGetResultString) cuptiGetResultString(status, &text);
        std::string words = text ? text : "CUPTI error " + std::to_string(static_cast<int>(status));
        if (status == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
            words += " (profiling is restricted to administrators on this machine: run as root, or load the driver with "
                     "NVreg_RestrictProfilingToAdminUsers=0)";
        return words;
    }
};

namespace {

// CUPTI names stall reasons after their counters: "smsp__pcsamp_warps_issue_stalled_long_scoreboard".
std::string shortReason(const std::string& name) {
    for (const std::string prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"})
        if (name.rfind(prefix, 0) == 0) return name.substr(prefix.size());
    return name;
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

PcSampler::PcSampler(DeviceContext& ctx, const PcSamplingOptions& options) : m_ctx(ctx), m_options(options) {
    m_api = new Api;
    if (!m_api->load(&m_error)) return;
    CUpti_PCSamplingEnableParams enable = {};
    enable.size = CUpti_PCSamplingEnableParamsSize;
    enable.ctx = m_ctx.context();
    const CUptiResult status = m_api->cuptiPCSamplingEnable(&enable);
    if (status != CUPTI_SUCCESS) {
        m_error = "enabling PC sampling failed: " + m_api->describe(status);
        return;
    }
    m_enabled = true;
}

PcSampler::~PcSampler() {
    if (m_enabled) {
        CUpti_PCSamplingDisableParams disable = {};
        disable.size = CUpti_PCSamplingDisableParamsSize;
        disable.ctx = m_ctx.context();
        m_api->cuptiPCSamplingDisable(&disable);
    }
    // The library stays loaded: CUPTI keeps threads and callbacks in the process.
    delete m_api;
}

nlohmann::json PcSampler::sample(const std::function<void()>& runOnce) {
    if (!m_enabled) return {{"error", m_error}};
    Api& api = *m_api;
    const CUcontext context = m_ctx.context();
    auto fail = [&](const std::string& what, CUptiResult status) {
        return nlohmann::json{{"error", what + " failed: " + api.describe(status)}};
    };

    size_t reasonCount = 0;
    CUpti_PCSamplingGetNumStallReasonsParams countParams = {};
    countParams.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    countParams.ctx = context;
    countParams.numStallReasons = &reasonCount;
    if (CUptiResult s = api.cuptiPCSamplingGetNumStallReasons(&countParams); s != CUPTI_SUCCESS) return fail("listing stall reasons", s);
    std::vector<std::vector<char>> reasonText(reasonCount, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, 0));
    std::vector<char*> reasonPointers;
    for (auto& text : reasonText) reasonPointers.push_back(text.data());
    std::vector<uint32_t> reasonIndex(reasonCount, 0);
    CUpti_PCSamplingGetStallReasonsParams reasonParams = {};
    reasonParams.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    reasonParams.ctx = context;
    reasonParams.numStallReasons = reasonCount;
    reasonParams.stallReasonIndex = reasonIndex.data();
    reasonParams.stallReasons = reasonPointers.data();
    if (CUptiResult s = api.cuptiPCSamplingGetStallReasons(&reasonParams); s != CUPTI_SUCCESS) return fail("naming stall reasons", s);
    std::map<uint32_t, std::string> reasonName;
    for (size_t i = 0; i < reasonCount; ++i) reasonName[reasonIndex[i]] = reasonText[i].data();

    // The buffer CUPTI fills at each GetData: up to kPcs PCs, each with every stall reason.
    constexpr size_t kPcs = 4096;
    api.pcs.assign(kPcs, CUpti_PCSamplingPCData{});
    api.pcReasons.assign(kPcs, std::vector<CUpti_PCSamplingStallReason>(reasonCount));
    std::vector<CUpti_PCSamplingPCData>& pcs = api.pcs;
    for (size_t i = 0; i < kPcs; ++i) {
        pcs[i].size = sizeof(CUpti_PCSamplingPCData);
        pcs[i].stallReason = api.pcReasons[i].data();
    }
    CUpti_PCSamplingData& data = api.data;
    data = {};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kPcs;
    data.pPcData = pcs.data();

    std::vector<CUpti_PCSamplingConfigurationInfo> config;
    auto attribute = [&](CUpti_PCSamplingConfigurationAttributeType type) -> CUpti_PCSamplingConfigurationInfo& {
        config.push_back({});
        config.back().attributeType = type;
        return config.back();
    };
    attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL).attributeData.enableStartStopControlData.enableStartStopControl = 1;
    attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE).attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER).attributeData.samplingDataBufferData.samplingDataBuffer = &data;
    if (m_options.period) attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD).attributeData.samplingPeriodData.samplingPeriod =
        static_cast<uint32_t>(m_options.period);
    CUpti_PCSamplingConfigurationInfoParams configParams = {};
    configParams.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    configParams.ctx = context;
    configParams.numAttributes = config.size();
    configParams.pPCSamplingConfigurationInfo = config.data();
    if (CUptiResult s = api.cuptiPCSamplingSetConfigurationAttribute(&configParams); s != CUPTI_SUCCESS) return fail("configuring PC sampling", s);

    // The range must hold only the sampled runs: let earlier work finish first.
    m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "finishing the work before sampling");
    CUpti_PCSamplingStartParams start = {};
    start.size = CUpti_PCSamplingStartParamsSize;
    start.ctx = context;
    if (CUptiResult s = api.cuptiPCSamplingStart(&start); s != CUPTI_SUCCESS) return fail("starting PC sampling", s);
    for (int i = 0; i < m_options.runs; ++i) runOnce();
    m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "running the sampled kernel");
    CUpti_PCSamplingStopParams stop = {};
    stop.size = CUpti_PCSamplingStopParamsSize;
    stop.ctx = context;
    if (CUptiResult s = api.cuptiPCSamplingStop(&stop); s != CUPTI_SUCCESS) return fail("stopping PC sampling", s);

    // Sum by (function, offset): one range may come back in several buffers.
    struct Pc {
        unsigned long long samples = 0;
        std::map<std::string, unsigned long long> stalls;
    };
    std::map<std::pair<std::string, unsigned long long>, Pc> byPc;
    unsigned long long total = 0, dropped = 0;
    bool bufferFull = false;
    CUpti_PCSamplingGetDataParams get = {};
    get.size = CUpti_PCSamplingGetDataParamsSize;
    get.ctx = context;
    get.pcSamplingData = &data;
    // Stop leaves the range's first PCs in the configured buffer; GetData then fetches the rest
    // (and, once, whatever the hardware buffer still held), into the same buffer.
    std::set<char*> names;
    auto consume = [&] {
        total += data.totalSamples;
        dropped += data.droppedSamples;
        bufferFull = bufferFull || data.hardwareBufferFull;
        for (size_t i = 0; i < data.totalNumPcs; ++i) {
            const CUpti_PCSamplingPCData& pc = pcs[i];
            const std::string function = pc.functionName ? pc.functionName : "?";
            Pc& entry = byPc[{function, pc.pcOffset}];
            for (size_t r = 0; r < pc.stallReasonCount; ++r) {
                const auto name = reasonName.find(pc.stallReason[r].pcSamplingStallReasonIndex);
                const std::string reason = shortReason(name == reasonName.end() ? "unknown" : name->second);
                entry.stalls[reason] += pc.stallReason[r].samples;
                // The "_not_issued" counters count again a subset of another reason's samples.
                if (!endsWith(reason, "_not_issued")) entry.samples += pc.stallReason[r].samples;
            }
            // CUPTI allocates the names, shared by the PCs of a function; the caller frees them.
            if (pc.functionName) names.insert(pc.functionName);
            pcs[i].functionName = nullptr;
        }
        data.totalNumPcs = 0;
    };
    consume();
    for (int round = 0; round < 100000; ++round) {
        const bool more = data.remainingNumPcs > 0;
        if (round > 0 && !more) break;
        if (CUptiResult s = api.cuptiPCSamplingGetData(&get); s != CUPTI_SUCCESS) {
            for (char* name : names) std::free(name);
            return fail("reading the samples", s);
        }
        consume();
    }
    for (char* name : names) std::free(name);
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [key, pc] : byPc)
        list.push_back({{"function", key.first}, {"offset", key.second}, {"samples", pc.samples}, {"stalls", pc.stalls}});
    nlohmann::json out = {{"period", m_options.period},   {"runs", m_options.runs},           {"total_samples", total},
                          {"dropped_samples", dropped},   {"hardware_buffer_full", bufferFull}, {"pcs", list}};
    return out;
}

}  // namespace kx::runner
