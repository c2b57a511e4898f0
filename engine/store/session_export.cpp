// SessionStore's copies and export (the class is declared in session_store.hpp): a consistent
// copy of the whole file, and the session as JSON and CSV.
#include "store/session_store.hpp"

#include "run/run_report_json.hpp"
#include "store/schema.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <fcntl.h>
#include <unistd.h>

#include <sstream>

namespace kx::engine {

namespace fs = std::filesystem;

namespace {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string number(double v) {
    std::ostringstream s;
    s.precision(10);
    s << v;
    return s.str();
}

}  // namespace

// [SECTION] Copies

void SessionStore::saveCopyAs(const fs::path& target) const {
    std::error_code ec;
    const fs::path absTarget = fs::absolute(target, ec);
    if (fs::exists(absTarget, ec) && fs::equivalent(absTarget, m_path, ec))
        throw InputError(target.string() + " is this session's own file");
    const fs::path parent = absTarget.parent_path();
    if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK) != 0)
        throw InputError("cannot save " + target.string() + ": its folder does not exist or is not writable");
    // VACUUM INTO refuses an existing file: write a fresh temporary one and rename it over the
    // target, which is atomic on one file system.
    const fs::path temp = parent / ("." + absTarget.filename().string() + ".saving-" + std::to_string(::getpid()));
    fs::remove(temp, ec);
    try {
        SQLite::Statement st(*m_db, "VACUUM INTO ?");
        st.bind(1, temp.string());
        st.exec();
    } catch (const std::exception& e) {
        fs::remove(temp, ec);
        throw InputError("cannot save " + target.string() + ": " + e.what());
    }
    // The copy is a plain rollback-journal file; the next open switches it to WAL.
    {
        const int fd = ::open(temp.c_str(), O_RDONLY);
        if (fd >= 0) {
            ::fsync(fd);
            ::close(fd);
        }
    }
    fs::rename(temp, absTarget, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw InputError("cannot save " + target.string() + ": " + ec.message());
    }
}

// [SECTION] Export

nlohmann::json SessionStore::exportJson() const {
    nlohmann::json j = {{"app", kSessionAppName}, {"schema_version", schemaVersion()}};
    j["created"] = m_db->execAndGet("SELECT value FROM meta WHERE key = 'created'").getString();
    nlohmann::json variantsJson = nlohmann::json::array();
    for (const SessionVariant& v : variants()) {
        nlohmann::json vj = {{"id", v.id},         {"name", v.name},   {"template", v.config.templateId},
                             {"arch", v.arch},     {"config", v.config.values}, {"config_canonical", v.config.canonical()},
                             {"flags", v.config.flags.canonical()},
                             {"notes", v.notes},   {"created_at", v.createdAt}, {"updated_at", v.updatedAt}};
        vj["artifacts"] = nlohmann::json::array();
        for (const ArtifactInfo& a : artifactsOf(v.id))
            vj["artifacts"].push_back({{"kind", artifactKindName(a.kind)}, {"hash", a.hash}, {"size", a.size}});
        vj["runs"] = nlohmann::json::array();
        for (const StoredRun& r : runsOf(v.id)) {
            nlohmann::json calibration = nullptr;
            if (!r.calibrationJson.empty()) calibration = nlohmann::json::parse(r.calibrationJson, nullptr, false);
            vj["runs"].push_back({{"id", r.id}, {"device", r.device}, {"created_at", r.createdAt}, {"calibration", calibration},
                                  {"report", toJson(r.report)}});
        }
        variantsJson.push_back(std::move(vj));
    }
    j["variants"] = std::move(variantsJson);
    j["sweeps"] = nlohmann::json::array();
    for (const StoredSweep& s : sweeps()) {
        nlohmann::json sj = {{"uid", s.uid},   {"name", s.name},   {"template", s.templateId}, {"arch", s.arch},
                             {"state", s.state}, {"created_at", s.createdAt}, {"updated_at", s.updatedAt}};
        sj["spec"] = nlohmann::json::parse(s.specJson, nullptr, false);
        sj["points"] = nlohmann::json::array();
        for (const StoredSweepPoint& p : sweepPoints(s.id)) {
            nlohmann::json pj = {{"name", p.name},     {"config", p.config.values}, {"flags", p.config.flags.canonical()},
                                 {"status", p.status}, {"reason", p.reason}};
            pj["variant_id"] = p.variantId ? nlohmann::json(*p.variantId) : nlohmann::json(nullptr);
            pj["run_id"] = p.runId ? nlohmann::json(*p.runId) : nlohmann::json(nullptr);
            pj["result"] = nlohmann::json::parse(p.resultJson, nullptr, false);
            sj["points"].push_back(std::move(pj));
        }
        j["sweeps"].push_back(std::move(sj));
    }
    j["presets"] = nlohmann::json::array();
    for (const StoredPreset& p : presets())
        j["presets"].push_back({{"name", p.name}, {"template", p.config.templateId}, {"arch", p.arch}, {"config", p.config.values},
                                {"flags", p.config.flags.canonical()}, {"notes", p.notes}, {"created_at", p.createdAt}});
    j["tutorial_progress"] = nlohmann::json::array();
    for (const TutorialProgress& t : allTutorialProgress())
        j["tutorial_progress"].push_back({{"tutorial", t.tutorialId}, {"step", t.step}, {"state", t.state}, {"updated_at", t.updatedAt}});
    return j;
}

std::string SessionStore::exportCsv() const {
    std::string out =
        "variant,template,arch,config,notes,run_id,run_created,device,ok,passed,median_ms,min_ms,max_ms,reps,tflops,gbps,"
        "pct_of_compute_ceiling,pct_of_copy_bandwidth,baseline,baseline_ms,speedup,registers,sizes,pct_of_roof,roof\n";
    for (const SessionVariant& v : variants()) {
        for (const StoredRun& r : runsOf(v.id)) {
            const RunReport& p = r.report;
            const BaselineReport* base = p.primaryBaseline();
            std::string sizes;
            for (const auto& [k, value] : p.sizes) sizes += (sizes.empty() ? "" : " ") + k + "=" + std::to_string(value);
            const std::vector<std::string> fields = {
                v.name, v.config.templateId, v.arch, v.config.canonical(), v.notes, std::to_string(r.id), r.createdAt, r.device,
                p.ok ? "1" : "0", p.correctness.passed ? "1" : "0", number(p.medianMs), number(p.minMs), number(p.maxMs),
                std::to_string(p.reps), number(p.tflops), number(p.gbps),
                p.pctOfComputeCeiling ? number(*p.pctOfComputeCeiling) : "", p.pctOfCopyBandwidth ? number(*p.pctOfCopyBandwidth) : "",
                base ? base->name : "", base ? number(base->medianMs) : "", base ? number(base->speedup) : "",
                std::to_string(p.registers), sizes, p.pctOfRoof ? number(*p.pctOfRoof) : "", p.roofName};
            for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csvField(fields[i]);
            out += "\n";
        }
    }
    return out;
}

}  // namespace kx::engine
