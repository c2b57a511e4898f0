#include "run/run_report_json.hpp"

#include "util/error.hpp"

#include <limits>
#include <type_traits>

namespace kx::engine {

namespace {

// j[key] as T when present, else `fallback`; a present key of the wrong type is bad input
// rather than a silent default, so a damaged document is noticed.
template <typename T>
T field(const nlohmann::json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    try {
        // An integer field holding a float out of the integer's range would be converted with
        // undefined behaviour: only JSON integers are taken.
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (!it->is_number_integer()) throw InputError(std::string("run report: '") + key + "' is not an integer");
            if (it->is_number_unsigned() ? it->template get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<T>::max())
                                         : it->template get<long long>() < static_cast<long long>(std::numeric_limits<T>::min()) ||
                                               it->template get<long long>() > static_cast<long long>(std::numeric_limits<T>::max()))
                throw InputError(std::string("run report: '") + key + "' is out of range");
        }
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        throw InputError(std::string("run report: '") + key + "' has the wrong type");
    }
}

void requireObject(const nlohmann::json& j, const char* what) {
    if (!j.is_object()) throw InputError(std::string(what) + " is not a JSON object");
}

}  // namespace

nlohmann::json toJson(const CorrectnessReport& c) {
    return {{"passed", c.passed},
            {"has_reference", c.hasReference},
            {"method", c.method},
            {"checked", c.checked},
            {"total", c.total},
            {"max_abs_error", c.maxAbsError},
            {"max_rel_error", c.maxRelError},
            {"tolerance", c.tolerance},
            {"first_bad_index", c.firstBadIndex},
            {"first_bad", c.firstBadText},
            {"baseline_compared", c.baselineCompared},
            {"baseline_agrees", c.baselineAgrees},
            {"baseline_max_rel_diff", c.baselineMaxRelDiff}};
}

nlohmann::json toJson(const BaselineReport& b) {
    nlohmann::json j = {{"id", b.id}, {"name", b.name}, {"median_ms", b.medianMs}, {"tflops", b.tflops}, {"gbps", b.gbps}, {"speedup", b.speedup}};
    if (!b.error.empty()) j["error"] = b.error;
    return j;
}

nlohmann::json toJson(const RunReport& r) {
    nlohmann::json j = {{"ok", r.ok},
                        {"variant", r.variant},
                        {"device", r.deviceName},
                        {"arch", r.deviceArch},
                        {"sizes", r.sizes},
                        {"median_ms", r.medianMs},
                        {"min_ms", r.minMs},
                        {"max_ms", r.maxMs},
                        {"reps", r.reps},
                        {"rotation_sets", r.rotationSets},
                        {"flops", r.flops},
                        {"bytes", r.bytes},
                        {"tflops", r.tflops},
                        {"gbps", r.gbps},
                        {"registers", r.registers},
                        {"driver_blocks_per_sm", r.driverBlocksPerSm},
                        {"correctness", toJson(r.correctness)}};
    if (!r.ok) j["error"] = r.error;
    if (!r.baselines.empty()) {
        j["baselines"] = nlohmann::json::array();
        for (const BaselineReport& b : r.baselines) j["baselines"].push_back(toJson(b));
    }
    // "baseline" (the one ratios are quoted against) stays for readers of older exports.
    if (const BaselineReport* b = r.primaryBaseline()) j["baseline"] = toJson(*b);
    if (r.pcSampling) j["pc_sampling"] = toJson(*r.pcSampling);
    if (!r.phasesMs.empty()) j["phases_ms"] = r.phasesMs;
    if (r.pctOfCopyBandwidth) j["pct_of_copy_bandwidth"] = *r.pctOfCopyBandwidth;
    if (r.pctOfComputeCeiling) {
        j["pct_of_compute_ceiling"] = *r.pctOfComputeCeiling;
        j["compute_ceiling"] = r.computeCeilingName;
    }
    return j;
}

nlohmann::json toJson(const PcSamplingReport& p) {
    if (!p.error.empty()) return {{"error", p.error}};
    nlohmann::json pcs = nlohmann::json::array();
    for (const PcSample& pc : p.pcs) pcs.push_back({{"function", pc.function}, {"offset", pc.offset}, {"samples", pc.samples}, {"stalls", pc.stalls}});
    return {{"period", p.period}, {"runs", p.runs}, {"total_samples", p.totalSamples}, {"dropped_samples", p.droppedSamples}, {"pcs", pcs}};
}

PcSamplingReport pcSamplingReportFromJson(const nlohmann::json& j) {
    requireObject(j, "PC sampling report");
    PcSamplingReport p;
    p.error = field(j, "error", p.error);
    p.period = field(j, "period", p.period);
    p.runs = field(j, "runs", p.runs);
    p.totalSamples = field(j, "total_samples", p.totalSamples);
    p.droppedSamples = field(j, "dropped_samples", p.droppedSamples);
    const auto pcs = j.find("pcs");
    if (pcs != j.end() && !pcs->is_null()) {
        if (!pcs->is_array()) throw InputError("run report: 'pcs' has the wrong type");
        for (const auto& entry : *pcs) {
            requireObject(entry, "PC sample");
            PcSample pc;
            pc.function = field(entry, "function", pc.function);
            pc.offset = field(entry, "offset", pc.offset);
            pc.samples = field(entry, "samples", pc.samples);
            if (const auto stalls = entry.find("stalls"); stalls != entry.end() && !stalls->is_null()) {
                requireObject(*stalls, "PC sample stalls");
                for (const auto& [reason, count] : stalls->items()) pc.stalls[reason] = field(*stalls, reason.c_str(), 0LL);
            }
            p.pcs.push_back(std::move(pc));
        }
    }
    return p;
}

CorrectnessReport correctnessReportFromJson(const nlohmann::json& j) {
    requireObject(j, "correctness report");
    CorrectnessReport c;
    c.passed = field(j, "passed", c.passed);
    c.hasReference = field(j, "has_reference", c.hasReference);
    c.method = field(j, "method", c.method);
    c.checked = field(j, "checked", c.checked);
    c.total = field(j, "total", c.total);
    c.maxAbsError = field(j, "max_abs_error", c.maxAbsError);
    c.maxRelError = field(j, "max_rel_error", c.maxRelError);
    c.tolerance = field(j, "tolerance", c.tolerance);
    c.firstBadIndex = field(j, "first_bad_index", c.firstBadIndex);
    c.firstBadText = field(j, "first_bad", c.firstBadText);
    c.baselineCompared = field(j, "baseline_compared", c.baselineCompared);
    c.baselineAgrees = field(j, "baseline_agrees", c.baselineAgrees);
    c.baselineMaxRelDiff = field(j, "baseline_max_rel_diff", c.baselineMaxRelDiff);
    return c;
}

BaselineReport baselineReportFromJson(const nlohmann::json& j) {
    requireObject(j, "baseline report");
    BaselineReport b;
    b.id = field(j, "id", b.id);
    b.name = field(j, "name", b.name);
    b.error = field(j, "error", b.error);
    b.medianMs = field(j, "median_ms", b.medianMs);
    b.tflops = field(j, "tflops", b.tflops);
    b.gbps = field(j, "gbps", b.gbps);
    b.speedup = field(j, "speedup", b.speedup);
    return b;
}

RunReport runReportFromJson(const nlohmann::json& j) {
    requireObject(j, "run report");
    RunReport r;
    r.ok = field(j, "ok", r.ok);
    r.error = field(j, "error", r.error);
    r.variant = field(j, "variant", r.variant);
    r.deviceName = field(j, "device", r.deviceName);
    r.deviceArch = field(j, "arch", r.deviceArch);
    r.sizes = field(j, "sizes", r.sizes);
    r.medianMs = field(j, "median_ms", r.medianMs);
    r.minMs = field(j, "min_ms", r.minMs);
    r.maxMs = field(j, "max_ms", r.maxMs);
    r.reps = field(j, "reps", r.reps);
    r.rotationSets = field(j, "rotation_sets", r.rotationSets);
    r.flops = field(j, "flops", r.flops);
    r.bytes = field(j, "bytes", r.bytes);
    r.tflops = field(j, "tflops", r.tflops);
    r.gbps = field(j, "gbps", r.gbps);
    r.registers = field(j, "registers", r.registers);
    r.driverBlocksPerSm = field(j, "driver_blocks_per_sm", r.driverBlocksPerSm);
    if (j.contains("correctness")) r.correctness = correctnessReportFromJson(j.at("correctness"));
    auto present = [&](const char* key) { return j.contains(key) && !j.at(key).is_null(); };
    if (present("baselines")) {
        if (!j.at("baselines").is_array()) throw InputError("run report: 'baselines' has the wrong type");
        for (const auto& b : j.at("baselines")) r.baselines.push_back(baselineReportFromJson(b));
    } else {
        // Reports written before baselines were a list: "baseline", then "library_baseline".
        if (present("baseline")) r.baselines.push_back(baselineReportFromJson(j.at("baseline")));
        if (present("library_baseline")) r.baselines.push_back(baselineReportFromJson(j.at("library_baseline")));
        if (present("library_baseline_error")) {
            BaselineReport failed;
            failed.name = "library baseline";
            failed.error = field(j, "library_baseline_error", std::string());
            r.baselines.push_back(failed);
        }
    }
    if (present("phases_ms")) r.phasesMs = field(j, "phases_ms", r.phasesMs);
    if (present("pc_sampling")) r.pcSampling = pcSamplingReportFromJson(j.at("pc_sampling"));
    if (present("pct_of_copy_bandwidth")) r.pctOfCopyBandwidth = field(j, "pct_of_copy_bandwidth", 0.0);
    if (present("pct_of_compute_ceiling")) {
        r.pctOfComputeCeiling = field(j, "pct_of_compute_ceiling", 0.0);
        r.computeCeilingName = field(j, "compute_ceiling", std::string());
    } else if (present("pct_of_cublas_peak")) {
        // Older reports: a percentage of the calibrated cuBLAS peak of the GEMM's dtype.
        r.pctOfComputeCeiling = field(j, "pct_of_cublas_peak", 0.0);
        r.computeCeilingName = "calibrated cuBLAS peak";
    }
    return r;
}

}  // namespace kx::engine
