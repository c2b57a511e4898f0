#include "run/run_report_json.hpp"

#include "util/error.hpp"

#include <limits>
#include <tuple>
#include <type_traits>

namespace kx::engine {

namespace {

template <typename T>
struct IsIntegerMap : std::false_type {};
template <typename V>
struct IsIntegerMap<std::map<std::string, V>> : std::bool_constant<std::is_integral_v<V> && !std::is_same_v<V, bool>> {};

// j[key] as T when present, else `fallback`; a present key of the wrong type is bad input
// rather than a silent default, so a damaged document is noticed.
template <typename T>
T field(const nlohmann::json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    // A map of integers (a run's sizes) is read value by value, each checked as below.
    if constexpr (IsIntegerMap<T>::value) {
        if (!it->is_object()) throw InputError(std::string("run report: '") + key + "' has the wrong type");
        T out;
        for (const auto& [name, value] : it->items()) out[name] = field(*it, name.c_str(), typename T::mapped_type{});
        return out;
    }
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

// One plain field of a report under its JSON key.
template <class Report, class T>
struct Key {
    const char* name;
    T Report::*member;
};
template <class Report, class T>
Key(const char*, T Report::*) -> Key<Report, T>;

// Each report's plain fields by key, in reading order: one list serves writing and reading, so a
// key cannot be written under one name and read under another. Keys with their own rules
// (nested reports, older spellings) are handled by the callers.
const auto kCorrectnessKeys = std::make_tuple(
    Key{"passed", &CorrectnessReport::passed}, Key{"has_reference", &CorrectnessReport::hasReference},
    Key{"method", &CorrectnessReport::method}, Key{"checked", &CorrectnessReport::checked}, Key{"total", &CorrectnessReport::total},
    Key{"max_abs_error", &CorrectnessReport::maxAbsError}, Key{"max_rel_error", &CorrectnessReport::maxRelError},
    Key{"tolerance", &CorrectnessReport::tolerance}, Key{"first_bad_index", &CorrectnessReport::firstBadIndex},
    Key{"first_bad", &CorrectnessReport::firstBadText}, Key{"baseline_compared", &CorrectnessReport::baselineCompared},
    Key{"baseline_agrees", &CorrectnessReport::baselineAgrees}, Key{"baseline_max_rel_diff", &CorrectnessReport::baselineMaxRelDiff});
const auto kBaselineKeys =
    std::make_tuple(Key{"id", &BaselineReport::id}, Key{"name", &BaselineReport::name}, Key{"error", &BaselineReport::error},
                    Key{"median_ms", &BaselineReport::medianMs}, Key{"tflops", &BaselineReport::tflops}, Key{"gbps", &BaselineReport::gbps},
                    Key{"speedup", &BaselineReport::speedup}, Key{"rotation_sets", &BaselineReport::rotationSets});
const auto kMemoryCounterKeys =
    std::make_tuple(Key{"error", &MemoryCountersReport::error}, Key{"dram_read_bytes", &MemoryCountersReport::dramReadBytes},
                    Key{"dram_write_bytes", &MemoryCountersReport::dramWriteBytes}, Key{"l2_bytes", &MemoryCountersReport::l2Bytes},
                    Key{"l1_bytes", &MemoryCountersReport::l1Bytes}, Key{"passes", &MemoryCountersReport::passes});
const auto kRunKeys = std::make_tuple(
    Key{"ok", &RunReport::ok}, Key{"error", &RunReport::error}, Key{"variant", &RunReport::variant}, Key{"device", &RunReport::deviceName},
    Key{"arch", &RunReport::deviceArch}, Key{"sizes", &RunReport::sizes}, Key{"median_ms", &RunReport::medianMs},
    Key{"min_ms", &RunReport::minMs}, Key{"max_ms", &RunReport::maxMs}, Key{"reps", &RunReport::reps},
    Key{"rotation_sets", &RunReport::rotationSets}, Key{"rounds", &RunReport::rounds}, Key{"flops", &RunReport::flops}, Key{"bytes", &RunReport::bytes},
    Key{"tflops", &RunReport::tflops}, Key{"gbps", &RunReport::gbps}, Key{"registers", &RunReport::registers},
    Key{"driver_blocks_per_sm", &RunReport::driverBlocksPerSm}, Key{"persistent_blocks", &RunReport::persistentBlocks},
    Key{"sm_count", &RunReport::smCount}, Key{"grid_blocks", &RunReport::gridBlocks});

// An object holding every key of `keys` with its value in r.
template <class Report, class Keys>
nlohmann::json writeKeys(const Report& r, const Keys& keys) {
    nlohmann::json j = nlohmann::json::object();
    std::apply([&](const auto&... k) { ((j[k.name] = r.*(k.member)), ...); }, keys);
    return j;
}

// Reads each key of `keys` present in j into r, in order (field() throws on a wrong type).
template <class Report, class Keys>
void readKeys(const nlohmann::json& j, Report& r, const Keys& keys) {
    std::apply([&](const auto&... k) { ((r.*(k.member) = field(j, k.name, r.*(k.member))), ...); }, keys);
}

// A report read from the keys of `keys`, after checking that j is an object.
template <class Report, class Keys>
Report reportFromKeys(const nlohmann::json& j, const char* what, const Keys& keys) {
    requireObject(j, what);
    Report r;
    readKeys(j, r, keys);
    return r;
}

}  // namespace

nlohmann::json toJson(const CorrectnessReport& c) { return writeKeys(c, kCorrectnessKeys); }

nlohmann::json toJson(const BaselineReport& b) {
    nlohmann::json j = writeKeys(b, kBaselineKeys);
    if (b.error.empty()) j.erase("error");
    return j;
}

nlohmann::json toJson(const RunReport& r) {
    nlohmann::json j = writeKeys(r, kRunKeys);
    if (r.ok) j.erase("error");
    j["correctness"] = toJson(r.correctness);
    if (!r.baselines.empty()) {
        j["baselines"] = nlohmann::json::array();
        for (const BaselineReport& b : r.baselines) j["baselines"].push_back(toJson(b));
    }
    // "baseline" (the one ratios are quoted against) stays for readers of older exports.
    if (const BaselineReport* b = r.primaryBaseline()) j["baseline"] = toJson(*b);
    if (r.pcSampling) j["pc_sampling"] = toJson(*r.pcSampling);
    if (r.memoryCounters) j["memory_counters"] = toJson(*r.memoryCounters);
    if (!r.phasesMs.empty()) j["phases_ms"] = r.phasesMs;
    if (r.pctOfCopyBandwidth) j["pct_of_copy_bandwidth"] = *r.pctOfCopyBandwidth;
    if (r.pctOfComputeCeiling) {
        j["pct_of_compute_ceiling"] = *r.pctOfComputeCeiling;
        j["compute_ceiling"] = r.computeCeilingName;
    }
    if (r.pctOfRoof) {
        j["pct_of_roof"] = *r.pctOfRoof;
        j["roof"] = r.roofName;
    }
    return j;
}

nlohmann::json toJson(const PcSamplingReport& p) {
    if (!p.error.empty()) return {{"error", p.error}};
    nlohmann::json pcs = nlohmann::json::array();
    for (const PcSample& pc : p.pcs) pcs.push_back({{"function", pc.function}, {"offset", pc.offset}, {"samples", pc.samples}, {"stalls", pc.stalls}});
    return {{"period", p.period}, {"runs", p.runs}, {"total_samples", p.totalSamples}, {"dropped_samples", p.droppedSamples}, {"pcs", pcs}};
}

nlohmann::json toJson(const MemoryCountersReport& m) {
    if (!m.error.empty()) return {{"error", m.error}};
    nlohmann::json j = writeKeys(m, kMemoryCounterKeys);
    j.erase("error");
    return j;
}

MemoryCountersReport memoryCountersReportFromJson(const nlohmann::json& j) {
    return reportFromKeys<MemoryCountersReport>(j, "memory counters report", kMemoryCounterKeys);
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
    return reportFromKeys<CorrectnessReport>(j, "correctness report", kCorrectnessKeys);
}

BaselineReport baselineReportFromJson(const nlohmann::json& j) {
    return reportFromKeys<BaselineReport>(j, "baseline report", kBaselineKeys);
}

RunReport runReportFromJson(const nlohmann::json& j) {
    requireObject(j, "run report");
    RunReport r;
    readKeys(j, r, kRunKeys);
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
    if (present("memory_counters")) r.memoryCounters = memoryCountersReportFromJson(j.at("memory_counters"));
    if (present("pct_of_copy_bandwidth")) r.pctOfCopyBandwidth = field(j, "pct_of_copy_bandwidth", 0.0);
    if (present("pct_of_compute_ceiling")) {
        r.pctOfComputeCeiling = field(j, "pct_of_compute_ceiling", 0.0);
        r.computeCeilingName = field(j, "compute_ceiling", std::string());
    } else if (present("pct_of_cublas_peak")) {
        // Older reports: a percentage of the calibrated cuBLAS peak of the GEMM's dtype.
        r.pctOfComputeCeiling = field(j, "pct_of_cublas_peak", 0.0);
        r.computeCeilingName = "calibrated cuBLAS peak";
    }
    if (present("pct_of_roof")) {
        r.pctOfRoof = field(j, "pct_of_roof", 0.0);
        r.roofName = field(j, "roof", std::string());
    }
    return r;
}

}  // namespace kx::engine
