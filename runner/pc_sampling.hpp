// Program-counter sampling through CUPTI's PC Sampling API: while a kernel runs, each SM's
// scheduler records every 2^period cycles which instruction a warp sits at and why it is not
// issuing (its stall reason). libcupti is loaded with dlopen only when sampling is asked for, so
// kx-runner still starts, and runs without sampling, where the toolkit's CUPTI is absent.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace kx::runner {

struct PcSamplingOptions {
    int period = 0;  // log2 of the sampling interval in cycles, 5..31; 0: CUPTI's default
    int runs = 10;   // runs of the launch sequence inside the sampled range
};

// Enabled for one context between construction and destruction. Construct it before the module
// is loaded (CUPTI attributes PCs to the functions of modules it saw being loaded); sample()
// then runs `runOnce` options.runs times inside a start/stop range. Failures (no CUPTI, no
// permission to profile, an unsupported GPU) never throw: sample() returns {"error": words}.
class PcSampler {
public:
    PcSampler(DeviceContext& ctx, const PcSamplingOptions& options);
    ~PcSampler();
    PcSampler(const PcSampler&) = delete;
    PcSampler& operator=(const PcSampler&) = delete;

    // {"period":p,"runs":r,"total_samples":n,"dropped_samples":d,"stall_reasons":[names],
    //  "pcs":[{"function":f,"offset":o,"samples":s,"stalls":{reason:count}}]} or {"error":...}.
    nlohmann::json sample(const std::function<void()>& runOnce);

private:
    struct Api;
    // Each returns an error sentence, empty on success.
    std::string readStallReasons(std::map<uint32_t, std::string>* names);
    std::string configure(size_t reasonCount);
    // The samples CUPTI holds after the range, summed by instruction.
    nlohmann::json collect(const std::map<uint32_t, std::string>& reasonName);
    DeviceContext& m_ctx;
    PcSamplingOptions m_options;
    Api* m_api = nullptr;
    bool m_enabled = false;
    std::string m_error;
};

}  // namespace kx::runner
