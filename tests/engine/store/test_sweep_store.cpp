// Schema 2: a version-1 file opens and is upgraded in place with its rows kept; sweeps, sweep
// points and presets round-trip; merging sessions follows its documented rules and is idempotent.
// Schema 3: compiler flags per variant round-trip, a version-2 file is upgraded with its variants
// at the default flags, and variants that differ only in their flags stay two variants.
#include "run/run_report_json.hpp"
#include "store/schema.hpp"
#include "store/session_store.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

fs::path freshPath(const std::string& stem) {
    static int counter = 0;
    const fs::path dir = fs::temp_directory_path() / ("kx-sweep-store-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / (stem + "-" + std::to_string(++counter) + ".kxs");
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
    return p;
}

Config mmaConfig(const std::string& bm) {
    Config c;
    c.templateId = "gemm_mma";
    c.values = {{"BM", bm}, {"BN", "128"}, {"dtype", "f16"}};
    return c;
}

RunReport timed(double ms) {
    RunReport r;
    r.ok = true;
    r.variant = "v";
    r.deviceName = "NVIDIA H100 80GB HBM3";
    r.medianMs = r.minMs = r.maxMs = ms;
    r.reps = 20;
    r.correctness.passed = true;
    return r;
}

StoredSweep sweepNamed(const std::string& uid) {
    StoredSweep s;
    s.uid = uid;
    s.name = "tiles";
    s.templateId = "gemm_mma";
    s.arch = "sm_90";
    s.specJson = R"({"axes":[{"param":"BM","values":["64","128"]}]})";
    return s;
}

StoredSweepPoint point(std::int64_t sweepId, const std::string& bm, const std::string& status, std::optional<std::int64_t> variant = {},
                       std::optional<std::int64_t> run = {}) {
    StoredSweepPoint p;
    p.sweepId = sweepId;
    p.config = mmaConfig(bm);
    p.name = "gemm_mma_" + bm;
    p.status = status;
    p.reason = status == "pruned" ? "spills 80 bytes (40 stored, 40 loaded)" : "";
    p.variantId = variant;
    p.runId = run;
    p.resultJson = R"({"resources":{"registers":128}})";
    return p;
}

}  // namespace

TEST_CASE("a version-1 session opens, is upgraded to the current version in place, and keeps its rows", "[store][migrations][sweep]") {
    const fs::path path = freshPath("v1");
    {
        // A file exactly as the first release wrote it: only the version-1 migration.
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        writeInitialMeta(db);
        migrate(db, 0, {sessionMigrations().front()}, path.string());
        REQUIRE(readSchemaVersion(db, path.string()) == 1);
        CHECK_FALSE(db.tableExists("sweeps"));
        db.exec("INSERT INTO variants(name, template_id, arch, config, config_json, notes, created_at, updated_at) VALUES "
                "('old_one', 'gemm_mma', 'sm_90', 'gemm_mma:BM=64', '{\"BM\":\"64\"}', 'kept', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')");
        db.exec("INSERT INTO runs(variant_id, device, report_json, ok, passed, median_ms, created_at) VALUES "
                "(1, 'H100', '" + toJson(timed(0.5)).dump() + "', 1, 1, 0.5, '2024-01-01T00:00:00Z')");
    }
    CHECK(currentSchemaVersion() >= 2);
    {
        SessionStore s = SessionStore::open(path);
        CHECK(s.schemaVersion() == currentSchemaVersion());
        const auto v = s.findVariant("old_one");
        REQUIRE(v);
        CHECK(v->notes == "kept");
        CHECK(s.runsOf(v->id).size() == 1);
        const std::int64_t sweep = s.findOrAddSweep(sweepNamed("u1"));
        s.putSweepPoint(point(sweep, "64", "compiled", v->id));
        CHECK(s.integrityCheck() == "ok");
    }
    // Reopened: still the current version, nothing migrated twice.
    SessionStore s = SessionStore::open(path);
    CHECK(s.schemaVersion() == currentSchemaVersion());
    REQUIRE(s.sweeps().size() == 1);
    CHECK(s.sweepPoints(s.sweeps().front().id).size() == 1);
}

TEST_CASE("sweeps, their points and presets round-trip", "[store][sweep]") {
    SessionStore s = SessionStore::create(freshPath("roundtrip"));
    const std::int64_t v = s.addVariant("gemm_mma_128", "sm_90", mmaConfig("128"));
    const std::int64_t run = s.addRun(v, timed(0.25));
    const std::int64_t sweep = s.findOrAddSweep(sweepNamed("abc"));
    CHECK(s.findOrAddSweep(sweepNamed("abc")) == sweep);  // the uid names it
    StoredSweep other = sweepNamed("abc");
    other.arch = "sm_80";
    CHECK_THROWS_WITH(s.findOrAddSweep(other), Catch::Contains("is of gemm_mma for sm_90, not gemm_mma for sm_80"));

    StoredSweepPoint measured = point(sweep, "128", "measured", v, run);
    measured.medianMs = 0.25;
    s.putSweepPoint(measured);
    s.putSweepPoint(point(sweep, "64", "pruned"));
    auto points = s.sweepPoints(sweep);
    REQUIRE(points.size() == 2);
    CHECK(points[0].status == "measured");
    CHECK(points[0].variantId == v);
    CHECK(points[0].runId == run);
    CHECK(points[0].medianMs == 0.25);
    CHECK(points[0].config == mmaConfig("128"));
    CHECK(points[1].reason == "spills 80 bytes (40 stored, 40 loaded)");
    CHECK_FALSE(points[1].variantId);
    CHECK_THROWS_AS(s.putSweepPoint(point(sweep, "32", "exploded")), InputError);

    // The same config again replaces its point.
    s.putSweepPoint(point(sweep, "64", "compiled"));
    points = s.sweepPoints(sweep);
    REQUIRE(points.size() == 2);
    CHECK(points[1].status == "compiled");

    // Deleting the variant leaves the point, unlinked.
    s.deleteVariant(v);
    CHECK_FALSE(s.sweepPoints(sweep)[0].variantId);

    s.setSweepState(sweep, "finished");
    CHECK(s.findSweep("abc")->state == "finished");
    CHECK(s.exportJson()["sweeps"][0]["points"].size() == 2);

    s.setPreset("best", "sm_90", mmaConfig("128"), "autotune winner");
    s.setPreset("best", "sm_90", mmaConfig("64"));
    REQUIRE(s.presets().size() == 1);
    CHECK(s.findPreset("best")->config == mmaConfig("64"));
    CHECK(s.exportJson()["presets"][0]["name"] == "best");
}

TEST_CASE("merging sessions unites variants and runs, keeps sweep points that got further, and is idempotent", "[store][merge]") {
    const fs::path aPath = freshPath("shard-a"), bPath = freshPath("shard-b"), outPath = freshPath("merged");
    {
        SessionStore a = SessionStore::create(aPath);
        const auto v = a.addVariant("gemm_mma_128", "sm_90", mmaConfig("128"), "fast");
        a.storeArtifact(v, ArtifactKind::Source, "source of 128");
        const auto run = a.addRun(v, timed(0.25));
        const auto sweep = a.findOrAddSweep(sweepNamed("shared"));
        StoredSweepPoint p = point(sweep, "128", "measured", v, run);
        p.medianMs = 0.25;
        a.putSweepPoint(p);
        a.putSweepPoint(point(sweep, "256", "not_reached"));
        a.setPreset("best", "sm_90", mmaConfig("128"));
    }
    {
        SessionStore b = SessionStore::create(bPath);
        // The same config under another name, with its own run and a PTX artifact a lacks.
        const auto same = b.addVariant("renamed", "sm_90", mmaConfig("128"));
        b.storeArtifact(same, ArtifactKind::Ptx, "ptx of 128");
        b.addRun(same, timed(0.26));
        // A config a does not have, under a name a uses for another arch: becomes NAME-2.
        const auto other = b.addVariant("gemm_mma_128", "sm_80", mmaConfig("128"));
        const auto sweep = b.findOrAddSweep(sweepNamed("shared"));
        b.putSweepPoint(point(sweep, "256", "pruned"));          // further than a's not_reached
        b.putSweepPoint(point(sweep, "128", "compiled", same));  // not as far as a's measured
        b.putSweepPoint(point(sweep, "64", "compiled", other));
        b.setPreset("best", "sm_90", mmaConfig("64"));           // another config under a taken name
    }
    SessionStore out = SessionStore::create(outPath);
    {
        const MergeStats first = out.mergeFrom(SessionStore::open(aPath));
        CHECK(first.variantsAdded == 1);
        CHECK(first.runsAdded == 1);
        CHECK(first.pointsAdded == 2);
        CHECK(first.sweepsAdded == 1);
    }
    const MergeStats second = out.mergeFrom(SessionStore::open(bPath));
    CHECK(second.variantsAdded == 1);
    CHECK(second.variantsMerged == 1);
    CHECK(second.runsAdded == 1);
    CHECK(second.pointsAdded == 2);  // 256 (pruned beats not_reached) and 64 (new)
    CHECK(second.pointsKept == 1);   // 128: measured stays

    const auto variants = out.variants();
    REQUIRE(variants.size() == 2);
    const auto fast = out.findVariant("gemm_mma_128");
    REQUIRE(fast);
    CHECK(fast->arch == "sm_90");
    CHECK(fast->notes == "fast");
    CHECK(out.runsOf(fast->id).size() == 2);
    CHECK(out.artifactOf(fast->id, ArtifactKind::Source) == "source of 128");
    CHECK(out.artifactOf(fast->id, ArtifactKind::Ptx) == "ptx of 128");
    const auto renamed = out.findVariant("gemm_mma_128-2");
    REQUIRE(renamed);
    CHECK(renamed->arch == "sm_80");

    REQUIRE(out.sweeps().size() == 1);
    const auto points = out.sweepPoints(out.sweeps().front().id);
    REQUIRE(points.size() == 3);
    std::map<std::string, StoredSweepPoint> byBm;
    for (const auto& p : points) byBm[p.config.at("BM")] = p;
    CHECK(byBm["128"].status == "measured");
    CHECK(byBm["128"].variantId == fast->id);
    REQUIRE(byBm["128"].runId);
    CHECK(out.runsOf(fast->id).front().id == *byBm["128"].runId);
    CHECK(byBm["256"].status == "pruned");
    CHECK(byBm["64"].variantId == renamed->id);

    REQUIRE(out.presets().size() == 2);
    CHECK(out.findPreset("best")->config == mmaConfig("128"));
    CHECK(out.findPreset("best-2")->config == mmaConfig("64"));

    // Again: nothing changes.
    const auto before = out.exportJson();
    const MergeStats again = out.mergeFrom(SessionStore::open(aPath));
    const MergeStats againB = out.mergeFrom(SessionStore::open(bPath));
    CHECK(again.variantsAdded + again.runsAdded + again.pointsAdded + again.presetsAdded == 0);
    CHECK(againB.variantsAdded + againB.runsAdded + againB.pointsAdded + againB.presetsAdded == 0);
    CHECK(againB.runsSkipped == 1);
    auto after = out.exportJson();
    // Only the sweep's updated_at may move.
    for (auto* j : {&after}) (*j)["sweeps"][0].erase("updated_at");
    auto beforeCopy = before;
    beforeCopy["sweeps"][0].erase("updated_at");
    CHECK(after == beforeCopy);

    CHECK_THROWS_WITH(out.mergeFrom(SessionStore::open(outPath)), Catch::Contains("into itself"));
}

// [SECTION] Schema 3: compiler flags

namespace {

Config gemmConfig(const std::string& flags = "") {
    Config c;
    c.templateId = "gemm";
    c.values = {{"BM", "64"}, {"BN", "128"}};
    c.flags = parseCompileFlags(flags);
    return c;
}

}  // namespace

TEST_CASE("a variant's compiler flags round-trip through the session", "[store][flags]") {
    const fs::path path = freshPath("roundtrip");
    {
        SessionStore s = SessionStore::create(path);
        CHECK(s.schemaVersion() == 3);
        s.addVariant("plain", "sm_90", gemmConfig());
        const std::int64_t capped = s.addVariant("capped", "sm_90", gemmConfig("maxrregcount=64,fast_math"));
        s.duplicateVariant(capped, "capped_copy");
    }
    const SessionStore s = SessionStore::open(path);
    CHECK(s.findVariant("plain")->config == gemmConfig());
    CHECK(s.findVariant("capped")->config == gemmConfig("maxrregcount=64,fast_math"));
    CHECK(s.findVariant("capped_copy")->config.flags.maxRegisters == 64);
    const auto summaries = s.summaries();
    REQUIRE(summaries.size() == 3);
    CHECK(summaries[1].variant.config.flags.fastMath);
    CHECK(summaries[1].runCount == 0);

    const nlohmann::json j = s.exportJson();
    CHECK(j["variants"][0]["flags"] == "");
    CHECK(j["variants"][1]["flags"] == "maxrregcount=64,fast_math=true");
    CHECK(j["variants"][1]["config_canonical"].get<std::string>().find("|maxrregcount=64") != std::string::npos);
}

TEST_CASE("a version-2 session is upgraded to 3 with default flags, and refuses flags it cannot read", "[store][flags][migrations]") {
    const fs::path path = freshPath("v2");
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        writeInitialMeta(db);
        migrate(db, 0, {sessionMigrations()[0], sessionMigrations()[1]}, path.string());
        REQUIRE(readSchemaVersion(db, path.string()) == 2);
        db.exec("INSERT INTO variants(name, template_id, arch, config, config_json, notes, created_at, updated_at) VALUES "
                "('old', 'gemm', 'sm_90', 'gemm:BM=64,BN=128', '{\"BM\":\"64\",\"BN\":\"128\"}', '', '2025-01-01T00:00:00Z', "
                "'2025-01-01T00:00:00Z')");
    }
    {
        SessionStore s = SessionStore::open(path);
        CHECK(s.schemaVersion() == 3);
        const auto old = s.findVariant("old");
        REQUIRE(old);
        CHECK(old->config == gemmConfig());
        CHECK(s.integrityCheck() == "ok");
    }
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("UPDATE variants SET flags = 'warp_speed=9' WHERE name = 'old'");
    }
    const SessionStore s = SessionStore::open(path);
    CHECK_THROWS_WITH(s.variants(), Catch::Contains("variant 'old' has compiler flags this version does not know"));
}

TEST_CASE("merging keeps variants that differ only in their flags apart", "[store][flags]") {
    const fs::path aPath = freshPath("a");
    const fs::path bPath = freshPath("b");
    {
        SessionStore a = SessionStore::create(aPath);
        a.addVariant("v", "sm_90", gemmConfig());
        SessionStore b = SessionStore::create(bPath);
        b.addVariant("v", "sm_90", gemmConfig("maxrregcount=64"));
        b.addVariant("same", "sm_90", gemmConfig());
    }
    SessionStore a = SessionStore::open(aPath);
    const MergeStats stats = a.mergeFrom(SessionStore::open(bPath));
    CHECK(stats.variantsAdded == 1);   // the capped one, as v-2
    CHECK(stats.variantsMerged == 1);  // "same" has v's config and flags
    REQUIRE(a.findVariant("v-2"));
    CHECK(a.findVariant("v-2")->config.flags.maxRegisters == 64);
    CHECK(a.mergeFrom(SessionStore::open(bPath)).variantsAdded == 0);
}
