#include "pc_sampling.hpp"

#include "cupti_library.hpp"

#include <cupti_pcsampling.h>

#include <cstdlib>
#include <map>
#include <set>
#include <vector>

namespace kx::runner {

// The CUPTI entry points sampling needs, each named once (cupti_library.hpp).
#define KX_PC_SAMPLING_FNS(X) \
    X(cuptiPCSamplingEnable) \
    X(cuptiPCSamplingDisable) \
    X(cuptiPCSamplingStart) \
    X(cuptiPCSamplingStop) \
    X(cuptiPCSamplingGetData) \
    X(cuptiPCSamplingSetConfigurationAttribute) \
    X(cuptiPCSamplingGetNumStallReasons) \
    X(cuptiPCSamplingGetStallReasons)

// The CUPTI entry points sampling needs, resolved from libcupti at run time.
struct PcSampler::Api {
    KX_CUPTI_ENTRY_POINTS(KX_PC_SAMPLING_FNS, "PC sampling", "this libcupti has no PC Sampling API (CUDA 11.3 or later is needed)")
    // The buffer CUPTI fills: configured once and written by CUPTI until sampling is disabled,
    // so it lives as long as the sampler.
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<std::vector<CUpti_PCSamplingStallReason>> pcReasons;
    CUpti_PCSamplingData data = {};

    std::string describe(CUptiResult status) const { return library->describe(status); }
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
    delete m_api;
}

std::string PcSampler::readStallReasons(std::map<uint32_t, std::string>* names) {
    Api& api = *m_api;
    size_t reasonCount = 0;
    CUpti_PCSamplingGetNumStallReasonsParams countParams = {};
    countParams.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    countParams.ctx = m_ctx.context();
    countParams.numStallReasons = &reasonCount;
    if (CUptiResult s = api.cuptiPCSamplingGetNumStallReasons(&countParams); s != CUPTI_SUCCESS)
        return "listing stall reasons failed: " + api.describe(s);
    std::vector<std::vector<char>> reasonText(reasonCount, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, 0));
    std::vector<char*> reasonPointers;
    for (auto& text : reasonText) reasonPointers.push_back(text.data());
    std::vector<uint32_t> reasonIndex(reasonCount, 0);
    CUpti_PCSamplingGetStallReasonsParams reasonParams = {};
    reasonParams.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    reasonParams.ctx = m_ctx.context();
    reasonParams.numStallReasons = reasonCount;
    reasonParams.stallReasonIndex = reasonIndex.data();
    reasonParams.stallReasons = reasonPointers.data();
    if (CUptiResult s = api.cuptiPCSamplingGetStallReasons(&reasonParams); s != CUPTI_SUCCESS)
        return "naming stall reasons failed: " + api.describe(s);
    for (size_t i = 0; i < reasonCount; ++i) (*names)[reasonIndex[i]] = reasonText[i].data();
    return {};
}

std::string PcSampler::configure(size_t reasonCount) {
    Api& api = *m_api;
    // The buffer CUPTI fills at each GetData: up to kPcs PCs, each with every stall reason.
    constexpr size_t kPcs = 4096;
    api.pcs.assign(kPcs, CUpti_PCSamplingPCData{});
    api.pcReasons.assign(kPcs, std::vector<CUpti_PCSamplingStallReason>(reasonCount));
    for (size_t i = 0; i < kPcs; ++i) {
        api.pcs[i].size = sizeof(CUpti_PCSamplingPCData);
        api.pcs[i].stallReason = api.pcReasons[i].data();
    }
    CUpti_PCSamplingData& data = api.data;
    data = {};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kPcs;
    data.pPcData = api.pcs.data();

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
    configParams.ctx = m_ctx.context();
    configParams.numAttributes = config.size();
    configParams.pPCSamplingConfigurationInfo = config.data();
    if (CUptiResult s = api.cuptiPCSamplingSetConfigurationAttribute(&configParams); s != CUPTI_SUCCESS)
        return "configuring PC sampling failed: " + api.describe(s);
    return {};
}

nlohmann::json PcSampler::collect(const std::map<uint32_t, std::string>& reasonName) {
    Api& api = *m_api;
    CUpti_PCSamplingData& data = api.data;
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
    get.ctx = m_ctx.context();
    get.pcSamplingData = &data;
    // Stop leaves the range's first PCs in the configured buffer; GetData then fetches the rest
    // (and, once, whatever the hardware buffer still held), into the same buffer.
    std::set<char*> names;
    auto consume = [&] {
        total += data.totalSamples;
        dropped += data.droppedSamples;
        bufferFull = bufferFull || data.hardwareBufferFull;
        for (size_t i = 0; i < data.totalNumPcs; ++i) {
            CUpti_PCSamplingPCData& pc = api.pcs[i];
            const unsigned long long offset = pc.pcOffset;
            Pc& entry = byPc[{pc.functionName ? pc.functionName : "?", offset}];
            for (size_t r = 0; r < pc.stallReasonCount; ++r) {
                const auto name = reasonName.find(pc.stallReason[r].pcSamplingStallReasonIndex);
                const std::string reason = shortReason(name == reasonName.end() ? "unknown" : name->second);
                entry.stalls[reason] += pc.stallReason[r].samples;
                // The "_not_issued" counters count again a subset of another reason's samples.
                if (!endsWith(reason, "_not_issued")) entry.samples += pc.stallReason[r].samples;
            }
            // CUPTI allocates the names, shared by the PCs of a function; the caller frees them.
            if (pc.functionName) names.insert(pc.functionName);
            pc.functionName = nullptr;
        }
        data.totalNumPcs = 0;
    };
    consume();
    std::string error;
    for (int round = 0; round < 100000 && error.empty(); ++round) {
        if (round > 0 && data.remainingNumPcs == 0) break;
        if (CUptiResult s = api.cuptiPCSamplingGetData(&get); s != CUPTI_SUCCESS) error = "reading the samples failed: " + api.describe(s);
        else consume();
    }
    for (char* name : names) std::free(name);
    if (!error.empty()) return {{"error", error}};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [key, pc] : byPc)
        list.push_back({{"function", key.first}, {"offset", key.second}, {"samples", pc.samples}, {"stalls", pc.stalls}});
    return {{"period", m_options.period},   {"runs", m_options.runs},           {"total_samples", total},
            {"dropped_samples", dropped},   {"hardware_buffer_full", bufferFull}, {"pcs", list}};
}

nlohmann::json PcSampler::sample(const std::function<void()>& runOnce) {
    if (!m_enabled) return {{"error", m_error}};
    Api& api = *m_api;
    std::map<uint32_t, std::string> reasonName;
    if (std::string error = readStallReasons(&reasonName); !error.empty()) return {{"error", error}};
    if (std::string error = configure(reasonName.size()); !error.empty()) return {{"error", error}};

    // The range must hold only the sampled runs: let earlier work finish first.
    m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "finishing the work before sampling");
    CUpti_PCSamplingStartParams start = {};
    start.size = CUpti_PCSamplingStartParamsSize;
    start.ctx = m_ctx.context();
    if (CUptiResult s = api.cuptiPCSamplingStart(&start); s != CUPTI_SUCCESS) return {{"error", "starting PC sampling failed: " + api.describe(s)}};
    for (int i = 0; i < m_options.runs; ++i) runOnce();
    m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "running the sampled kernel");
    CUpti_PCSamplingStopParams stop = {};
    stop.size = CUpti_PCSamplingStopParamsSize;
    stop.ctx = m_ctx.context();
    if (CUptiResult s = api.cuptiPCSamplingStop(&stop); s != CUPTI_SUCCESS) return {{"error", "stopping PC sampling failed: " + api.describe(s)}};
    return collect(reasonName);
}

}  // namespace kx::runner
