// SessionStore's sweeps, presets and merge (the class is declared in session_store.hpp; variants,
// artifacts and runs live in session_store.cpp, opening in session_open.cpp, export in
// session_export.cpp).
#include "store/session_store.hpp"

#include "store/store_rows.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <map>

namespace kx::engine {

namespace fs = std::filesystem;
using store_detail::bindNamedConfig;
using store_detail::configFrom;
using store_detail::nowText;
// [SECTION] Sweeps

namespace {

const char* const kSweepColumns = "id, uid, name, template_id, arch, spec_json, state, created_at, updated_at";
const char* const kPointColumns =
    "id, sweep_id, config_json, name, status, reason, variant_id, run_id, median_ms, result_json, created_at, config";

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

// A row of SELECT kPointColumns FROM sweep_points, for a sweep of templateId.
StoredSweepPoint pointFromRow(SQLite::Statement& st, const std::string& templateId, const std::string& where) {
    StoredSweepPoint p;
    p.id = st.getColumn(0).getInt64();
    p.sweepId = st.getColumn(1).getInt64();
    p.config = configFrom(templateId, st.getColumn(2).getString(), st.getColumn(11).getString(), where);
    p.name = st.getColumn(3).getString();
    p.status = st.getColumn(4).getString();
    p.reason = st.getColumn(5).getString();
    p.variantId = optionalId(st.getColumn(6));
    p.runId = optionalId(st.getColumn(7));
    if (!st.getColumn(8).isNull()) p.medianMs = st.getColumn(8).getDouble();
    p.resultJson = st.getColumn(9).getString();
    p.createdAt = st.getColumn(10).getString();
    return p;
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
    while (st.executeStep()) list.push_back(pointFromRow(st, templateId, m_path.string()));
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
        bindNamedConfig(st, name, arch, config, notes);
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
    SQLite::Statement st(*m_db, "SELECT id, name, template_id, arch, config_json, notes, created_at, config FROM presets ORDER BY name");
    std::vector<StoredPreset> list;
    while (st.executeStep()) {
        StoredPreset p;
        p.id = st.getColumn(0).getInt64();
        p.name = st.getColumn(1).getString();
        p.arch = st.getColumn(3).getString();
        p.config = configFrom(st.getColumn(2).getString(), st.getColumn(4).getString(), st.getColumn(7).getString(), m_path.string());
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

// Other's ids of variants and runs -> ours, for the sweep points that name them.
struct MergeIds {
    std::map<std::int64_t, std::int64_t> variants;
    std::map<std::int64_t, std::int64_t> runs;

    static std::optional<std::int64_t> mapped(const std::map<std::int64_t, std::int64_t>& ids, const std::optional<std::int64_t>& id) {
        if (!id) return std::nullopt;
        const auto it = ids.find(*id);
        return it == ids.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
    }
};

// Runs of their variant `theirId` into our variant `ourId`, compared as stored: the report's
// JSON text, device and time.
void mergeRuns(SQLite::Database& ours, SQLite::Database& theirs, std::int64_t theirId, std::int64_t ourId, MergeIds& ids, MergeStats& stats) {
    SQLite::Statement their(theirs,
                            "SELECT id, device, calibration_json, report_json, ok, passed, median_ms, created_at FROM runs "
                            "WHERE variant_id = ? ORDER BY id");
    their.bind(1, static_cast<int64_t>(theirId));
    while (their.executeStep()) {
        SQLite::Statement dup(ours, "SELECT id FROM runs WHERE variant_id = ? AND device = ? AND created_at = ? AND report_json = ?");
        dup.bind(1, static_cast<int64_t>(ourId));
        dup.bind(2, their.getColumn(1).getString());
        dup.bind(3, their.getColumn(7).getString());
        dup.bind(4, their.getColumn(3).getString());
        if (dup.executeStep()) {
            ids.runs[their.getColumn(0).getInt64()] = dup.getColumn(0).getInt64();
            ++stats.runsSkipped;
            continue;
        }
        SQLite::Statement add(ours,
                              "INSERT INTO runs(variant_id, device, calibration_json, report_json, ok, passed, median_ms, created_at) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        add.bind(1, static_cast<int64_t>(ourId));
        add.bind(2, their.getColumn(1).getString());
        add.bind(3, their.getColumn(2).getString());
        add.bind(4, their.getColumn(3).getString());
        add.bind(5, their.getColumn(4).getInt());
        add.bind(6, their.getColumn(5).getInt());
        add.bind(7, their.getColumn(6).getDouble());
        add.bind(8, their.getColumn(7).getString());
        add.exec();
        ids.runs[their.getColumn(0).getInt64()] = ours.getLastInsertRowid();
        ++stats.runsAdded;
    }
}

// Variants, keyed by template, arch and config, with the artifact kinds ours lacks and their runs.
void mergeVariants(SessionStore& self, SQLite::Database& ours, const SessionStore& other, SQLite::Database& theirs, MergeIds& ids,
                   MergeStats& stats) {
    for (const SessionVariant& v : other.variants()) {
        SQLite::Statement same(ours, "SELECT id FROM variants WHERE template_id = ? AND arch = ? AND config = ?");
        same.bind(1, v.config.templateId);
        same.bind(2, v.arch);
        same.bind(3, v.config.canonical());
        std::int64_t id = 0;
        if (same.executeStep()) {
            id = same.getColumn(0).getInt64();
            if (self.variant(id)->notes.empty() && !v.notes.empty()) self.setNotes(id, v.notes);
            ++stats.variantsMerged;
        } else {
            const std::string name = freeName(v.name, [&](const std::string& n) { return self.findVariant(n).has_value(); });
            id = self.addVariant(name, v.arch, v.config, v.notes);
            ++stats.variantsAdded;
        }
        ids.variants[v.id] = id;
        std::vector<ArtifactKind> have;
        for (const ArtifactInfo& a : self.artifactsOf(id)) have.push_back(a.kind);
        for (const ArtifactInfo& a : other.artifactsOf(v.id)) {
            if (std::find(have.begin(), have.end(), a.kind) != have.end()) continue;
            if (const auto bytes = other.artifact(a.hash)) self.storeArtifact(id, a.kind, *bytes);
        }
        mergeRuns(ours, theirs, v.id, id, ids, stats);
    }
}

// Sweeps, keyed by uid; each config once, the point that got further wins.
void mergeSweeps(SessionStore& self, const SessionStore& other, const MergeIds& ids, MergeStats& stats) {
    for (const StoredSweep& s : other.sweeps()) {
        if (!self.findSweep(s.uid)) ++stats.sweepsAdded;
        const std::int64_t sweepId = self.findOrAddSweep(s);
        std::map<std::string, std::string> ourStatus;
        for (const StoredSweepPoint& p : self.sweepPoints(sweepId)) ourStatus[p.config.canonical()] = p.status;
        for (StoredSweepPoint p : other.sweepPoints(s.id)) {
            const auto it = ourStatus.find(p.config.canonical());
            if (it != ourStatus.end() && pointRank(it->second) >= pointRank(p.status)) {
                ++stats.pointsKept;
                continue;
            }
            p.sweepId = sweepId;
            p.variantId = MergeIds::mapped(ids.variants, p.variantId);
            p.runId = MergeIds::mapped(ids.runs, p.runId);
            self.putSweepPoint(p);
            ++stats.pointsAdded;
        }
        // A sweep is finished once any of its shards says so and none is still running.
        if (s.state == "running") self.setSweepState(sweepId, "running");
        else if (self.findSweep(s.uid)->state != "running") self.setSweepState(sweepId, s.state);
    }
}

void mergePresets(SessionStore& self, const SessionStore& other, MergeStats& stats) {
    for (const StoredPreset& p : other.presets()) {
        const auto same = self.findPreset(p.name);
        if (same && same->config == p.config && same->arch == p.arch) continue;
        const std::string name = freeName(p.name, [&](const std::string& n) {
            const auto existing = self.findPreset(n);
            return existing.has_value() && !(existing->config == p.config && existing->arch == p.arch);
        });
        if (const auto existing = self.findPreset(name); existing && existing->config == p.config) continue;
        self.setPreset(name, p.arch, p.config, p.notes);
        ++stats.presetsAdded;
    }
}

// The more recently updated of the two, with its own time.
void mergeTutorialProgress(const SessionStore& self, SQLite::Database& ours, const SessionStore& other) {
    for (const TutorialProgress& t : other.allTutorialProgress()) {
        const auto mine = self.tutorialProgress(t.tutorialId);
        if (mine && mine->updatedAt >= t.updatedAt) continue;
        SQLite::Statement st(ours,
                             "INSERT INTO tutorial_progress(tutorial_id, step, state, updated_at) VALUES (?, ?, ?, ?) "
                             "ON CONFLICT(tutorial_id) DO UPDATE SET step = excluded.step, state = excluded.state, "
                             "updated_at = excluded.updated_at");
        st.bind(1, t.tutorialId);
        st.bind(2, t.step);
        st.bind(3, t.state);
        st.bind(4, t.updatedAt);
        st.exec();
    }
}

}  // namespace

MergeStats SessionStore::mergeFrom(const SessionStore& other) {
    std::error_code ec;
    if (fs::equivalent(other.m_path, m_path, ec)) throw InputError("cannot merge " + m_path.string() + " into itself");
    MergeStats stats;
    // Each step calls the public calls of this store, which join this one transaction.
    write("merge sessions", [&] {
        MergeIds ids;
        mergeVariants(*this, *m_db, other, *other.m_db, ids, stats);
        mergeSweeps(*this, other, ids, stats);
        mergePresets(*this, other, stats);
        mergeTutorialProgress(*this, *m_db, other);
    });
    return stats;
}

}  // namespace kx::engine
