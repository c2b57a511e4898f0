#include "sweep/sweep_record.hpp"

#include "store/session_record.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <chrono>
#include <random>
#include <unistd.h>

namespace kx::engine {

namespace {

nlohmann::json optionalNumber(double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string num(double v, const char* format = "{:.6g}") { return fmt::format(fmt::runtime(format), v); }

// The compiler flags that some point sets to other than the default, in compileFlagKeys() order.
std::vector<std::string> setFlags(const std::vector<SweepPoint>& points) {
    const CompileFlags defaults;
    std::vector<std::string> keys;
    for (const CompileFlagKey& k : compileFlagKeys())
        for (const SweepPoint& p : points)
            if (p.config.flags.value(k.key) != defaults.value(k.key)) {
                keys.push_back(k.key);
                break;
            }
    return keys;
}

}  // namespace

nlohmann::json sweepPointJson(const SweepPoint& p) {
    nlohmann::json j = {{"name", p.name},
                        {"config", p.config.values},
                        {"flags", p.config.flags.canonical()},
                        {"status", pointStatusName(p.status)},
                        {"reason", p.reason},
                        {"violations", p.violations},
                        {"compile_ms", p.compileMs},
                        {"from_cache", p.fromCache}};
    j["resources"] = nullptr;
    if (p.resources) {
        const PointResources& r = *p.resources;
        j["resources"] = {{"registers", r.registers},           {"spill_store_bytes", r.spillStoreBytes},
                          {"spill_load_bytes", r.spillLoadBytes}, {"static_smem_bytes", r.staticSmemBytes},
                          {"dynamic_smem_bytes", r.dynamicSmemBytes}, {"stack_frame_bytes", r.stackFrameBytes},
                          {"threads_per_block", r.threadsPerBlock}, {"barriers", r.barriers}};
    }
    j["predicted"] = nullptr;
    if (p.prediction) {
        const PointPrediction& q = *p.prediction;
        j["predicted"] = {{"occupancy", q.occupancy},           {"blocks_per_sm", q.blocksPerSm}, {"limiter", q.limiter},
                          {"waves", q.waves},                   {"busy_share", q.busyShare},
                          {"ai", q.ai},                         {"roofline_tflops", q.rooflineTflops},
                          {"roofline_device", q.rooflineDevice}, {"roofline_unit", q.rooflineUnit},
                          {"memory_bound", q.memoryBound}};
    }
    j["measured"] = nullptr;
    if (p.run && p.run->ok) {
        const RunReport& r = *p.run;
        j["measured"] = {{"device", p.device},
                         {"device_name", r.deviceName},
                         {"median_ms", r.medianMs},
                         {"min_ms", r.minMs},
                         {"max_ms", r.maxMs},
                         {"reps", r.reps},
                         {"tflops", r.tflops},
                         {"gbps", r.gbps},
                         {"pct_of_ceiling", r.pctOfComputeCeiling ? nlohmann::json(*r.pctOfComputeCeiling) : nlohmann::json(nullptr)},
                         {"ceiling", r.computeCeilingName},
                         {"pct_of_baseline", optionalNumber(p.pctOfBaseline())},
                         {"baseline", r.primaryBaseline() ? r.primaryBaseline()->name : ""},
                         {"pct_of_roof", optionalNumber(p.pctOfRoof())},
                         {"verdict", verdictText(r.correctness.verdict())}};
    }
    return j;
}

SweepPoint sweepPointFromJson(const nlohmann::json& j, const std::string& templateId) {
    SweepPoint p;
    try {
        p.name = j.at("name").get<std::string>();
        p.config.templateId = templateId;
        p.config.values = j.at("config").get<std::map<std::string, std::string>>();
        p.config.flags = parseCompileFlags(j.value("flags", ""));
        p.status = parsePointStatus(j.at("status").get<std::string>());
        p.reason = j.value("reason", "");
        p.violations = j.value("violations", std::vector<std::string>{});
        p.compileMs = j.value("compile_ms", 0.0);
        p.fromCache = j.value("from_cache", false);
        if (const auto& r = j.at("resources"); r.is_object()) {
            PointResources res;
            res.registers = r.value("registers", 0);
            res.spillStoreBytes = r.value("spill_store_bytes", 0LL);
            res.spillLoadBytes = r.value("spill_load_bytes", 0LL);
            res.staticSmemBytes = r.value("static_smem_bytes", 0LL);
            res.dynamicSmemBytes = r.value("dynamic_smem_bytes", 0LL);
            res.stackFrameBytes = r.value("stack_frame_bytes", 0LL);
            res.threadsPerBlock = r.value("threads_per_block", 0);
            res.barriers = r.value("barriers", 0);
            p.resources = res;
        }
        if (const auto& q = j.at("predicted"); q.is_object()) {
            PointPrediction pred;
            pred.occupancy = q.value("occupancy", 0.0);
            pred.blocksPerSm = q.value("blocks_per_sm", 0);
            pred.limiter = q.value("limiter", "");
            pred.waves = q.value("waves", 0LL);
            pred.busyShare = q.value("busy_share", 0.0);
            pred.ai = q.value("ai", 0.0);
            pred.rooflineTflops = q.value("roofline_tflops", 0.0);
            pred.rooflineDevice = q.value("roofline_device", "");
            pred.rooflineUnit = q.value("roofline_unit", "");
            pred.memoryBound = q.value("memory_bound", false);
            p.prediction = pred;
        }
        if (const auto& m = j.at("measured"); m.is_object()) {
            RunReport r;
            r.ok = true;
            r.variant = p.name;
            r.deviceName = m.value("device_name", "");
            r.medianMs = m.value("median_ms", 0.0);
            r.minMs = m.value("min_ms", 0.0);
            r.maxMs = m.value("max_ms", 0.0);
            r.reps = m.value("reps", 0);
            r.tflops = m.value("tflops", 0.0);
            r.gbps = m.value("gbps", 0.0);
            if (m.contains("pct_of_ceiling") && m["pct_of_ceiling"].is_number()) r.pctOfComputeCeiling = m["pct_of_ceiling"].get<double>();
            r.computeCeilingName = m.value("ceiling", "");
            if (m.contains("pct_of_baseline") && m["pct_of_baseline"].is_number()) {
                BaselineReport b;
                b.name = m.value("baseline", "baseline");
                b.speedup = m["pct_of_baseline"].get<double>() / 100.0;
                b.medianMs = r.medianMs * b.speedup;
                r.baselines.push_back(b);
            }
            r.correctness.hasReference = m.value("verdict", "") != "NO REFERENCE";
            r.correctness.passed = m.value("verdict", "") == "PASS";
            p.device = m.value("device", -1);
            p.run = r;
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("a stored sweep point is malformed: ") + e.what());
    }
    return p;
}

std::string sweepCsv(const Template& tmpl, const std::vector<SweepPoint>& points) {
    std::vector<std::string> header;
    for (const ParamSpec& param : tmpl.manifest().params) header.push_back(param.name);
    const std::vector<std::string> flagColumns = setFlags(points);
    header.insert(header.end(), flagColumns.begin(), flagColumns.end());
    for (const char* column : {"name", "status", "reason", "registers", "spill_bytes", "static_smem", "dynamic_smem", "threads", "occupancy",
                               "blocks_per_sm", "limiter", "waves", "busy_share", "predicted_ai", "predicted_roof_tflops", "compile_ms", "device", "median_ms",
                               "tflops", "gbps", "pct_of_ceiling", "pct_of_baseline", "pct_of_roof", "verdict"})
        header.push_back(column);
    std::string out;
    for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
    out += "\n";
    for (const SweepPoint& p : points) {
        std::vector<std::string> row;
        for (const ParamSpec& param : tmpl.manifest().params) {
            const auto it = p.config.values.find(param.name);
            row.push_back(it == p.config.values.end() ? "" : it->second);
        }
        for (const std::string& key : flagColumns) row.push_back(p.config.flags.value(key));
        row.push_back(p.name);
        row.push_back(pointStatusName(p.status));
        row.push_back(p.reason);
        const PointResources* r = p.resources ? &*p.resources : nullptr;
        row.push_back(r ? std::to_string(r->registers) : "");
        row.push_back(r ? std::to_string(r->spillBytes()) : "");
        row.push_back(r ? std::to_string(r->staticSmemBytes) : "");
        row.push_back(r ? std::to_string(r->dynamicSmemBytes) : "");
        row.push_back(r ? std::to_string(r->threadsPerBlock) : "");
        const PointPrediction* q = p.prediction ? &*p.prediction : nullptr;
        row.push_back(q ? num(q->occupancy, "{:.4f}") : "");
        row.push_back(q ? std::to_string(q->blocksPerSm) : "");
        row.push_back(q ? q->limiter : "");
        row.push_back(q && q->waves > 0 ? std::to_string(q->waves) : "");
        row.push_back(q && q->waves > 0 ? num(q->busyShare, "{:.3f}") : "");
        row.push_back(q && q->ai > 0 ? num(q->ai) : "");
        row.push_back(q && q->rooflineTflops > 0 ? num(q->rooflineTflops) : "");
        row.push_back(p.compiled || p.compileMs > 0 ? num(p.compileMs, "{:.1f}") : "");
        const bool m = p.measured();
        row.push_back(m ? std::to_string(p.device) : "");
        row.push_back(m ? num(p.run->medianMs) : "");
        row.push_back(m ? num(p.run->tflops) : "");
        row.push_back(m ? num(p.run->gbps) : "");
        row.push_back(m && p.run->pctOfComputeCeiling ? num(*p.run->pctOfComputeCeiling, "{:.2f}") : "");
        row.push_back(m && p.pctOfBaseline() > 0 ? num(p.pctOfBaseline(), "{:.2f}") : "");
        row.push_back(m && p.pctOfRoof() > 0 ? num(p.pctOfRoof(), "{:.2f}") : "");
        row.push_back(p.run && p.run->ok ? verdictText(p.run->correctness.verdict()) : "");
        for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csvField(row[i]);
        out += "\n";
    }
    return out;
}

std::string newSweepUid() {
    std::random_device device;
    std::mt19937_64 rng((static_cast<std::uint64_t>(device()) << 32) ^ device() ^
                        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                        static_cast<std::uint64_t>(::getpid()));
    return fmt::format("{:016x}{:016x}", rng(), rng());
}

void recordSweepPoint(SessionStore& store, std::int64_t sweepId, const std::string& arch, const SweepPoint& point) {
    store.transaction([&] {
        StoredSweepPoint stored;
        stored.sweepId = sweepId;
        stored.config = point.config;
        stored.name = point.name;
        stored.status = pointStatusName(point.status);
        stored.reason = point.reason;
        stored.resultJson = sweepPointJson(point).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (point.compiled && point.compiled->ok) {
            stored.variantId = recordVariant(store, point.name, arch, point.config, artifactsOf(point.source, *point.compiled));
            if (point.run) stored.runId = store.addRun(*stored.variantId, *point.run, calibrationJsonFor(point.run->deviceName));
        }
        if (point.measured()) stored.medianMs = point.run->medianMs;
        store.putSweepPoint(stored);
    });
}

std::vector<SweepPoint> storedSweepPoints(const SessionStore& store, std::int64_t sweepId, const std::string& templateId) {
    std::vector<SweepPoint> points;
    for (const StoredSweepPoint& s : store.sweepPoints(sweepId)) {
        const nlohmann::json j = nlohmann::json::parse(s.resultJson, nullptr, false);
        SweepPoint p = j.is_object() && j.contains("name") ? sweepPointFromJson(j, templateId) : SweepPoint{};
        p.index = points.size();
        p.config = s.config;
        p.name = s.name;
        p.status = parsePointStatus(s.status);
        p.reason = s.reason;
        points.push_back(std::move(p));
    }
    return points;
}

}  // namespace kx::engine
