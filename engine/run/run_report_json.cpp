#include "run/run_report_json.hpp"

#include "util/error.hpp"

namespace kx::engine {

namespace {

// j[key] as T when present, else `fallback`; a present key of the wrong type is bad input
// rather than a silent default, so a damaged document is noticed.
template <typename T>
T field(const nlohmann::json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    try {
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
    return {{"name", b.name}, {"median_ms", b.medianMs}, {"tflops", b.tflops}, {"gbps", b.gbps}, {"speedup", b.speedup}};
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
    if (r.baseline) j["baseline"] = toJson(*r.baseline);
    if (r.libraryBaseline) j["library_baseline"] = toJson(*r.libraryBaseline);
    if (!r.libraryBaselineError.empty()) j["library_baseline_error"] = r.libraryBaselineError;
    if (r.pctOfCopyBandwidth) j["pct_of_copy_bandwidth"] = *r.pctOfCopyBandwidth;
    if (r.pctOfCublasPeak) j["pct_of_cublas_peak"] = *r.pctOfCublasPeak;
    return j;
}

CorrectnessReport correctnessReportFromJson(const nlohmann::json& j) {
    requireObject(j, "correctness report");
    CorrectnessReport c;
    c.passed = field(j, "passed", c.passed);
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
    b.name = field(j, "name", b.name);
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
    if (j.contains("baseline") && !j.at("baseline").is_null()) r.baseline = baselineReportFromJson(j.at("baseline"));
    if (j.contains("library_baseline") && !j.at("library_baseline").is_null())
        r.libraryBaseline = baselineReportFromJson(j.at("library_baseline"));
    r.libraryBaselineError = field(j, "library_baseline_error", r.libraryBaselineError);
    if (j.contains("pct_of_copy_bandwidth") && !j.at("pct_of_copy_bandwidth").is_null())
        r.pctOfCopyBandwidth = field(j, "pct_of_copy_bandwidth", 0.0);
    if (j.contains("pct_of_cublas_peak") && !j.at("pct_of_cublas_peak").is_null())
        r.pctOfCublasPeak = field(j, "pct_of_cublas_peak", 0.0);
    return r;
}

}  // namespace kx::engine
