// SessionStore's sweeps, presets and merge (the class is declared in session_store.hpp; opening,
// variants, artifacts, runs and export live in session_store.cpp).
#include "store/session_store.hpp"

#include "store/store_rows.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <map>

namespace kx::engine {

namespace fs = std::filesystem;
using store_detail::configFrom;
using store_detail::nowText;
// [SECTION] Sweeps

namespace {

const char* const kSweepColumns = "id, uid, name, template_id, arch, spec_json, state, created_at, updated_at";
const char* const kPointColumns =
    "id, sweep_id, config_json, name, status, reason, variant_id, run_id, median_ms, result_json, created_at";

StoredSweep sweepFromRow(SQLite::Statement& st) {
    StoredSweep s;
    s.id = st.getColumn(0).getInt64();
    s.uid = st.getColumn(1).getString();
    s.name = st.getColumn(2).getString();
    s.templateId = st.getColumn(3).getString();
    s.arch = st.getColumn(4).getString();
    s.specJson = st.getColumn(5).getString();
    s.state = st.getColumn(6).getString();
    s.createdAt = st.getColumn(7).getString();
    s.updatedAt = st.getColumn(8).getString();
    return s;
}

std::optional<std::int64_t> optionalId(const SQLite::Column& c) {
    if (c.isNull()) return std::nullopt;
    return c.getInt64();
}

// How far a sweep point got: a merge keeps the one that got further.
int pointRank(const std::string& status) {
    if (status == "measured") return 3;
    if (status == "run_failed") return 2;
    if (status == "not_reached") return 0;
    return 1;  // pruned, compile_failed, compiled
}

std::string templateOfSweep(SQLite::Database& db, std::int64_t sweepId) {
    SQLite::Statement st(db, "SELECT template_id FROM sweeps WHERE id = ?");
    st.bind(1, static_cast<int64_t>(sweepId));
    if (!st.executeStep()) throw InputError("the session has no sweep with id " + std::to_string(sweepId));
    return st.getColumn(0).getString();
}

}  // namespace

std::int64_t SessionStore::findOrAddSweep(const StoredSweep& sweep) {
    if (sweep.uid.empty()) throw InputError("a sweep needs a uid");
    std::int64_t id = 0;
    write("add a sweep", [&] {
        if (const auto existing = findSweep(sweep.uid)) {
            if (existing->templateId != sweep.templateId || existing->arch != sweep.arch)
                throw InputError("sweep " + sweep.uid + " in " + m_path.string() + " is of " + existing->templateId + " for " +
                                 existing->arch + ", not " + sweep.templateId + " for " + sweep.arch);
            id = existing->id;
            return;
        }
        SQLite::Statement st(*m_db,
                             "INSERT INTO sweeps(uid, name, template_id, arch, spec_json, state, created_at, updated_at) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        const std::string now = sweep.createdAt.empty() ? nowText() : sweep.createdAt;
        st.bind(1, sweep.uid);
        st.bind(2, sweep.name);
        st.bind(3, sweep.templateId);
        st.bind(4, sweep.arch);
        st.bind(5, sweep.specJson.empty() ? "{}" : sweep.specJson);
        st.bind(6, sweep.state.empty() ? "running" : sweep.state);
        st.bind(7, now);
        st.bind(8, sweep.updatedAt.empty() ? now : sweep.updatedAt);
        st.exec();
        id = m_db->getLastInsertRowid();
    });
    return id;
}

void SessionStore::setSweepState(std::int64_t sweepId, const std::string& state) {
    write("change a sweep's state", [&] {
        SQLite::Statement st(*m_db, "UPDATE sweeps SET state = ?, updated_at = ? WHERE id = ?");
        st.bind(1, state);
        st.bind(2, nowText());
        st.bind(3, static_cast<int64_t>(sweepId));
        st.exec();
        if (m_db->getChanges() == 0) throw InputError("the session has no sweep with id " + std::to_string(sweepId));
    });
}

std::vector<StoredSweep> SessionStore::sweeps() const {
    SQLite::Statement st(*m_db, std::string("SELECT ") + kSweepColumns + " FROM sweeps ORDER BY id");
    std::vector<StoredSweep> list;
    while (st.executeStep()) list.push_back(sweepFromRow(st));
    return list;
}

std::optional<StoredSweep> SessionStore::findSweep(const std::string& uid) const {
    SQLite::Statement st(*m_db, std::string("SELECT ") + kSweepColumns + " FROM sweeps WHERE uid = ?");
    st.bind(1, uid);
    if (!st.executeStep()) return std::nullopt;
    return sweepFromRow(st);
}

std::int64_t SessionStore::putSweepPoint(const StoredSweepPoint& point) {
    std::int64_t id = 0;
    write("record a sweep point", [&] {
        templateOfSweep(*m_db, point.sweepId);  // throws for an unknown sweep
        SQLite::Statement st(*m_db,
                             "INSERT INTO sweep_points(sweep_id, config, config_json, name, status, reason, variant_id, run_id, "
                             "median_ms, result_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                             "ON CONFLICT(sweep_id, config) DO UPDATE SET name = excluded.name, status = excluded.status, "
                             "reason = excluded.reason, variant_id = excluded.variant_id, run_id = excluded.run_id, "
                             "median_ms = excluded.median_ms, result_json = excluded.result_json, created_at = excluded.created_at");
        st.bind(1, static_cast<int64_t>(point.sweepId));
        st.bind(2, point.config.canonical());
        st.bind(3, nlohmann::json(point.config.values).dump());
        st.bind(4, point.name);
        st.bind(5, point.status);
        st.bind(6, point.reason);
        if (point.variantId) st.bind(7, static_cast<int64_t>(*point.variantId)); else st.bind(7);
        if (point.runId) st.bind(8, static_cast<int64_t>(*point.runId)); else st.bind(8);
        if (point.medianMs) st.bind(9, *point.medianMs); else st.bind(9);
        st.bind(10, point.resultJson.empty() ? "{}" : point.resultJson);
        st.bind(11, point.createdAt.empty() ? nowText() : point.createdAt);
        try {
            st.exec();
        } catch (const SQLite::Exception& e) {
            throw InputError("cannot record sweep point " + point.name + " (status '" + point.status + "'): " + e.what());
        }
        SQLite::Statement idOf(*m_db, "SELECT id FROM sweep_points WHERE sweep_id = ? AND config = ?");
        idOf.bind(1, static_cast<int64_t>(point.sweepId));
        idOf.bind(2, point.config.canonical());
        idOf.executeStep();
        id = idOf.getColumn(0).getInt64();
        SQLite::Statement touchSweep(*m_db, "UPDATE sweeps SET updated_at = ? WHERE id = ?");
        touchSweep.bind(1, nowText());
        touchSweep.bind(2, static_cast<int64_t>(point.sweepId));
        touchSweep.exec();
    });
    return id;
}

std::vector<StoredSweepPoint> SessionStore::sweepPoints(std::int64_t sweepId) const {
    const std::string templateId = templateOfSweep(*m_db, sweepId);
    SQLite::Statement st(*m_db, std::string("SELECT ") + kPointColumns + " FROM sweep_points WHERE sweep_id = ? ORDER BY id");
    st.bind(1, static_cast<int64_t>(sweepId));
    std::vector<StoredSweepPoint> list;
    while (st.executeStep()) {
        StoredSweepPoint p;
        p.id = st.getColumn(0).getInt64();
        p.sweepId = st.getColumn(1).getInt64();
        p.config = configFrom(templateId, st.getColumn(2).getString(), m_path.string());
        p.name = st.getColumn(3).getString();
        p.status = st.getColumn(4).getString();
        p.reason = st.getColumn(5).getString();
        p.variantId = optionalId(st.getColumn(6));
        p.runId = optionalId(st.getColumn(7));
        if (!st.getColumn(8).isNull()) p.medianMs = st.getColumn(8).getDouble();
        p.resultJson = st.getColumn(9).getString();
        p.createdAt = st.getColumn(10).getString();
        list.push_back(std::move(p));
    }
    return list;
}

// [SECTION] Presets

std::int64_t SessionStore::setPreset(const std::string& name, const std::string& arch, const Config& config, const std::string& notes) {
    if (name.empty() || name.find_first_of("\n\r") != std::string::npos) throw InputError("a preset needs a one-line name");
    std::int64_t id = 0;
    write("keep a preset", [&] {
        SQLite::Statement st(*m_db,
                             "INSERT INTO presets(name, template_id, arch, config, config_json, notes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                             "ON CONFLICT(name) DO UPDATE SET template_id = excluded.template_id, arch = excluded.arch, "
                             "config = excluded.config, config_json = excluded.config_json, notes = excluded.notes, "
                             "created_at = excluded.created_at");
        st.bind(1, name);
        st.bind(2, config.templateId);
        st.bind(3, arch);
        st.bind(4, config.canonical());
        st.bind(5, nlohmann::json(config.values).dump());
        st.bind(6, notes);
        st.bind(7, nowText());
        st.exec();
        SQLite::Statement idOf(*m_db, "SELECT id FROM presets WHERE name = ?");
        idOf.bind(1, name);
        idOf.executeStep();
        id = idOf.getColumn(0).getInt64();
    });
    return id;
}

std::vector<StoredPreset> SessionStore::presets() const {
    SQLite::Statement st(*m_db, "SELECT id, name, template_id, arch, config_json, notes, created_at FROM presets ORDER BY name");
    std::vector<StoredPreset> list;
    while (st.executeStep()) {
        StoredPreset p;
        p.id = st.getColumn(0).getInt64();
        p.name = st.getColumn(1).getString();
        p.arch = st.getColumn(3).getString();
        p.config = configFrom(st.getColumn(2).getString(), st.getColumn(4).getString(), m_path.string());
        p.notes = st.getColumn(5).getString();
        p.createdAt = st.getColumn(6).getString();
        list.push_back(std::move(p));
    }
    return list;
}

std::optional<StoredPreset> SessionStore::findPreset(const std::string& name) const {
    for (StoredPreset& p : presets())
        if (p.name == name) return std::move(p);
    return std::nullopt;
}

// [SECTION] Merge

namespace {

// The first of NAME, NAME-2, NAME-3... that `taken` says is free.
std::string freeName(const std::string& name, const std::function<bool(const std::string&)>& taken) {
    if (!taken(name)) return name;
    for (int n = 2;; ++n)
        if (const std::string candidate = name + "-" + std::to_string(n); !taken(candidate)) return candidate;
}

}  // namespace

MergeStats SessionStore::mergeFrom(const SessionStore& other) {
    std::error_code ec;
    if (fs::equivalent(other.m_path, m_path, ec)) throw InputError("cannot merge " + m_path.string() + " into itself");
    MergeStats stats;
    write("merge sessions", [&] {
        // Variants, keyed by template, arch and config.
        std::map<std::int64_t, std::int64_t> variantIds;  // other's id -> ours
        std::map<std::int64_t, std::int64_t> runIds;
        for (const SessionVariant& v : other.variants()) {
            SQLite::Statement same(*m_db, "SELECT id FROM variants WHERE template_id = ? AND arch = ? AND config = ?");
            same.bind(1, v.config.templateId);
            same.bind(2, v.arch);
            same.bind(3, v.config.canonical());
            std::int64_t id = 0;
            if (same.executeStep()) {
                id = same.getColumn(0).getInt64();
                if (variant(id)->notes.empty() && !v.notes.empty()) setNotes(id, v.notes);
                ++stats.variantsMerged;
            } else {
                const std::string name = freeName(v.name, [&](const std::string& n) { return findVariant(n).has_value(); });
                id = addVariant(name, v.arch, v.config, v.notes);
                ++stats.variantsAdded;
            }
            variantIds[v.id] = id;
            std::vector<ArtifactKind> have;
            for (const ArtifactInfo& a : artifactsOf(id)) have.push_back(a.kind);
            for (const ArtifactInfo& a : other.artifactsOf(v.id)) {
                if (std::find(have.begin(), have.end(), a.kind) != have.end()) continue;
                if (const auto bytes = other.artifact(a.hash)) storeArtifact(id, a.kind, *bytes);
            }
            // Runs, compared as stored: the report's JSON text, device and time.
            SQLite::Statement theirs(*other.m_db,
                                     "SELECT id, device, calibration_json, report_json, ok, passed, median_ms, created_at FROM runs "
                                     "WHERE variant_id = ? ORDER BY id");
            theirs.bind(1, static_cast<int64_t>(v.id));
            while (theirs.executeStep()) {
                SQLite::Statement dup(*m_db, "SELECT id FROM runs WHERE variant_id = ? AND device = ? AND created_at = ? AND report_json = ?");
                dup.bind(1, static_cast<int64_t>(id));
                dup.bind(2, theirs.getColumn(1).getString());
                dup.bind(3, theirs.getColumn(7).getString());
                dup.bind(4, theirs.getColumn(3).getString());
                if (dup.executeStep()) {
                    runIds[theirs.getColumn(0).getInt64()] = dup.getColumn(0).getInt64();
                    ++stats.runsSkipped;
                    continue;
                }
                SQLite::Statement add(*m_db,
                                      "INSERT INTO runs(variant_id, device, calibration_json, report_json, ok, passed, median_ms, created_at) "
                                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
                add.bind(1, static_cast<int64_t>(id));
                add.bind(2, theirs.getColumn(1).getString());
                add.bind(3, theirs.getColumn(2).getString());
                add.bind(4, theirs.getColumn(3).getString());
                add.bind(5, theirs.getColumn(4).getInt());
                add.bind(6, theirs.getColumn(5).getInt());
                add.bind(7, theirs.getColumn(6).getDouble());
                add.bind(8, theirs.getColumn(7).getString());
                add.exec();
                runIds[theirs.getColumn(0).getInt64()] = m_db->getLastInsertRowid();
                ++stats.runsAdded;
            }
        }
        auto mapped = [](const std::map<std::int64_t, std::int64_t>& ids, const std::optional<std::int64_t>& id) -> std::optional<std::int64_t> {
            if (!id) return std::nullopt;
            const auto it = ids.find(*id);
            return it == ids.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
        };

        // Sweeps, keyed by uid; each config once, the point that got further wins.
        for (const StoredSweep& s : other.sweeps()) {
            if (!findSweep(s.uid)) ++stats.sweepsAdded;
            const std::int64_t sweepId = findOrAddSweep(s);
            std::map<std::string, std::string> ourStatus;
            for (const StoredSweepPoint& p : sweepPoints(sweepId)) ourStatus[p.config.canonical()] = p.status;
            for (StoredSweepPoint p : other.sweepPoints(s.id)) {
                const auto it = ourStatus.find(p.config.canonical());
                if (it != ourStatus.end() && pointRank(it->second) >= pointRank(p.status)) {
                    ++stats.pointsKept;
                    continue;
                }
                p.sweepId = sweepId;
                p.variantId = mapped(variantIds, p.variantId);
                p.runId = mapped(runIds, p.runId);
                putSweepPoint(p);
                ++stats.pointsAdded;
            }
            // A sweep is finished once any of its shards says so and none is still running.
            if (s.state == "running") setSweepState(sweepId, "running");
            else if (findSweep(s.uid)->state != "running") setSweepState(sweepId, s.state);
        }

        for (const StoredPreset& p : other.presets()) {
            const auto same = findPreset(p.name);
            if (same && same->config == p.config && same->arch == p.arch) continue;
            const std::string name = freeName(p.name, [&](const std::string& n) {
                const auto existing = findPreset(n);
                return existing.has_value() && !(existing->config == p.config && existing->arch == p.arch);
            });
            if (const auto existing = findPreset(name); existing && existing->config == p.config) continue;
            setPreset(name, p.arch, p.config, p.notes);
            ++stats.presetsAdded;
        }

        for (const TutorialProgress& t : other.allTutorialProgress()) {
            const auto ours = tutorialProgress(t.tutorialId);
            if (ours && ours->updatedAt >= t.updatedAt) continue;
            SQLite::Statement st(*m_db,
                                 "INSERT INTO tutorial_progress(tutorial_id, step, state, updated_at) VALUES (?, ?, ?, ?) "
                                 "ON CONFLICT(tutorial_id) DO UPDATE SET step = excluded.step, state = excluded.state, "
                                 "updated_at = excluded.updated_at");
            st.bind(1, t.tutorialId);
            st.bind(2, t.step);
            st.bind(3, t.state);
            st.bind(4, t.updatedAt);
            st.exec();
        }
    });
    return stats;
}

}  // namespace kx::engine
