// Sessions: round trips of every table, migrations, damaged and foreign files, read-only files,
// and SIGKILL in the middle of writing.
#include "run/run_report_json.hpp"
#include "store/schema.hpp"
#include "store/session_store.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

fs::path scratch() {
    const fs::path dir = fs::temp_directory_path() / ("kx-store-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

// A path in the scratch folder that no other test uses; nothing is there yet.
fs::path freshPath(const std::string& stem) {
    static int counter = 0;
    const fs::path p = scratch() / (stem + "-" + std::to_string(++counter) + ".kxs");
    fs::remove(p);
    fs::remove(p.string() + "-wal");
    fs::remove(p.string() + "-shm");
    return p;
}

void writeFile(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

Config gemmConfig(const std::string& bm) {
    Config c;
    c.templateId = "gemm";
    c.values = {{"BM", bm}, {"BN", "128"}, {"BK", "32"}, {"DTYPE", "f16"}};
    return c;
}

BaselineReport baseline(const std::string& id, const std::string& name, double ms, double tflops, double gbps, double speedup) {
    BaselineReport b;
    b.id = id;
    b.name = name;
    b.medianMs = ms;
    b.tflops = tflops;
    b.gbps = gbps;
    b.speedup = speedup;
    return b;
}

RunReport sampleReport(const std::string& variant, double medianMs, bool full = true) {
    RunReport r;
    r.ok = true;
    r.variant = variant;
    r.deviceName = "NVIDIA H100 80GB HBM3";
    r.deviceArch = "sm_90";
    r.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    r.medianMs = medianMs;
    r.minMs = medianMs * 0.98;
    r.maxMs = medianMs * 1.05;
    r.reps = 20;
    r.rotationSets = 3;
    r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    r.bytes = 3.0 * 4096 * 4096 * 2;
    r.tflops = r.flops / (medianMs * 1e9);
    r.gbps = 123.25;
    r.registers = 128;
    r.driverBlocksPerSm = 2;
    r.smCount = 132;
    r.gridBlocks = 1024;
    r.correctness.passed = true;
    r.correctness.method = "sampled float64 + full cuBLAS";
    r.correctness.checked = 4096;
    r.correctness.total = 4096 * 4096;
    r.correctness.maxAbsError = 1.5e-3;
    r.correctness.maxRelError = 2.5e-4;
    r.correctness.tolerance = 1e-2;
    r.correctness.firstBadIndex = -1;
    if (full) {
        r.correctness.baselineCompared = true;
        r.correctness.baselineAgrees = true;
        r.correctness.baselineMaxRelDiff = 1e-5;
        r.baselines.push_back(baseline("cublas_gemm", "cuBLAS f16 (B transposed)", medianMs * 0.8, 700.5, 0, 0.8));
        r.pctOfComputeCeiling = 71.5;
        r.computeCeilingName = "FP32 (measured)";
    } else {
        r.pctOfCopyBandwidth = 88.0;
    }
    return r;
}

void requireSameReport(const RunReport& a, const RunReport& b) {
    CHECK(toJson(a) == toJson(b));  // every field, through the one serializer
    CHECK(a.medianMs == b.medianMs);
    CHECK(a.sizes == b.sizes);
    CHECK(a.baselines.size() == b.baselines.size());
    CHECK(a.pctOfComputeCeiling == b.pctOfComputeCeiling);
    CHECK(a.pctOfCopyBandwidth == b.pctOfCopyBandwidth);
    CHECK(a.correctness.method == b.correctness.method);
    CHECK(a.smCount == b.smCount);
    CHECK(a.gridBlocks == b.gridBlocks);
}

// InputError whose message names the file.
void requireRefused(const fs::path& p, const std::string& expected) {
    try {
        SessionStore::open(p);
        FAIL("opened " << p.string());
    } catch (const InputError& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find(p.string()) != std::string::npos);
        CHECK(what.find(expected) != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
}

}  // namespace

TEST_CASE("run reports read back equal through their JSON", "[store][json]") {
    for (const RunReport& r : {sampleReport("a", 1.25, true), sampleReport("b", 0.5, false)}) {
        const RunReport back = runReportFromJson(toJson(r));
        requireSameReport(r, back);
    }
    RunReport reduction = sampleReport("c", 0.35, false);
    reduction.baselines.push_back(baseline("cub_reduce", "CUB DeviceReduce f32 sum", 0.36, 0, 2990.5, 1.03));
    reduction.baselines.push_back(baseline("copy", "device copy", 0.34, 0, 3100, 0.97));
    const RunReport reductionBack = runReportFromJson(toJson(reduction));
    REQUIRE(reductionBack.baselines.size() == 2);
    CHECK(reductionBack.baselines[0].name == "CUB DeviceReduce f32 sum");
    CHECK(reductionBack.baselines[0].gbps == 2990.5);
    CHECK(reductionBack.baselines[1].id == "copy");
    RunReport noCub = sampleReport("d", 0.35, false);
    BaselineReport failedCub = baseline("cub_reduce", "cub_reduce", 0, 0, 0, 0);
    failedCub.error = "this kx-runner was built without nvcc, so without CUB";
    noCub.baselines.push_back(failedCub);
    noCub.baselines.push_back(baseline("copy", "device copy", 0.34, 0, 3100, 0.97));
    const RunReport noCubBack = runReportFromJson(toJson(noCub));
    CHECK(noCubBack.baselines.at(0).error == failedCub.error);
    CHECK(!noCubBack.baselines.at(0).ok());
    REQUIRE(noCubBack.primaryBaseline());
    CHECK(noCubBack.primaryBaseline()->id == "copy");
    // A report written before baselines were a list still reads.
    const nlohmann::json older = {{"ok", true}, {"median_ms", 1.0}, {"pct_of_cublas_peak", 64.0},
                                  {"baseline", {{"name", "device copy"}, {"median_ms", 0.9}, {"gbps", 3000.0}, {"speedup", 0.9}}},
                                  {"library_baseline", {{"name", "CUB DeviceReduce f32 sum"}, {"median_ms", 1.1}, {"speedup", 1.1}}}};
    const RunReport olderBack = runReportFromJson(older);
    REQUIRE(olderBack.baselines.size() == 2);
    CHECK(olderBack.baselines[1].name == "CUB DeviceReduce f32 sum");
    CHECK(olderBack.pctOfComputeCeiling == 64.0);
    RunReport failed;
    failed.error = "the kernel faulted";
    CHECK(runReportFromJson(toJson(failed)).error == "the kernel faulted");
    CHECK(runReportFromJson(nlohmann::json::object()).medianMs == 0);  // older documents: defaults
    CHECK_THROWS_AS(runReportFromJson(nlohmann::json::array()), InputError);
    CHECK_THROWS_AS(runReportFromJson({{"median_ms", "fast"}}), InputError);
}

TEST_CASE("a session keeps variants, artifacts, runs and tutorial progress across reopening", "[store]") {
    const fs::path path = freshPath("roundtrip");
    std::int64_t a = 0, b = 0, copy = 0;
    std::string srcHash, ptxHash;
    static constexpr char kBinary[] = "\0\x01\xff\xfe sass\0tail";  // embedded NULs and high bytes
    const std::string binary(kBinary, sizeof kBinary - 1);
    {
        SessionStore s = SessionStore::create(path);
        CHECK_FALSE(s.readOnly());
        CHECK(s.schemaVersion() == currentSchemaVersion());
        a = s.addVariant("gemm_128", "sm_90", gemmConfig("128"), "first try");
        b = s.addVariant("gemm_64", "sm_80", gemmConfig("64"));
        CHECK_THROWS_AS(s.addVariant("gemm_64", "sm_80", gemmConfig("64")), InputError);
        CHECK_THROWS_AS(s.addVariant("", "sm_80", gemmConfig("64")), InputError);
        s.renameVariant(b, "gemm_64_renamed");
        CHECK_THROWS_AS(s.renameVariant(b, "gemm_128"), InputError);
        CHECK_THROWS_AS(s.renameVariant(999, "x"), InputError);
        s.setNotes(b, "spills; try fewer stages\nsecond line");

        srcHash = s.storeArtifact(a, ArtifactKind::Source, "extern \"C\" __global__ void k() {}");
        ptxHash = s.putArtifact(ArtifactKind::Ptx, ".version 8.0");
        CHECK(s.putArtifact(ArtifactKind::Ptx, ".version 8.0") == ptxHash);  // stored once
        CHECK(s.putArtifact(ArtifactKind::Source, ".version 8.0") != ptxHash);  // the kind is part of the identity
        s.linkArtifact(a, ArtifactKind::Ptx, ptxHash);
        s.linkArtifact(b, ArtifactKind::Ptx, ptxHash);
        s.storeArtifact(a, ArtifactKind::Sass, binary);
        s.storeArtifact(a, ArtifactKind::Resources, "");
        CHECK_THROWS_AS(s.linkArtifact(a, ArtifactKind::Source, ptxHash), InputError);
        CHECK_THROWS_AS(s.linkArtifact(a, ArtifactKind::Ptx, "0123"), InputError);

        s.addRun(a, sampleReport("gemm_128", 1.5), R"({"device":"H100","copy_gbs":3000})");
        s.addRun(a, sampleReport("gemm_128", 1.25, false));
        RunReport failed = sampleReport("gemm_128", 9.0);
        failed.correctness.passed = false;
        s.addRun(a, failed);
        CHECK_THROWS_AS(s.addRun(12345, failed), InputError);

        copy = s.duplicateVariant(a, "gemm_128_copy");
        CHECK_THROWS_AS(s.duplicateVariant(a, "gemm_64_renamed"), InputError);

        s.setTutorialProgress("vector_add", 2, "active");
        s.setTutorialProgress("vector_add", 3, "done");
        s.setTutorialProgress("matmul", 1, "active");
    }
    CHECK_THROWS_AS(SessionStore::create(path), InputError);  // never overwrites

    SessionStore s = SessionStore::open(path);
    const auto variants = s.variants();
    REQUIRE(variants.size() == 3);
    CHECK(variants[0].id == a);
    CHECK(variants[0].name == "gemm_128");
    CHECK(variants[0].arch == "sm_90");
    CHECK(variants[0].config == gemmConfig("128"));
    CHECK(variants[0].notes == "first try");
    CHECK_FALSE(variants[0].createdAt.empty());
    CHECK(variants[1].name == "gemm_64_renamed");
    CHECK(variants[1].config == gemmConfig("64"));
    CHECK(variants[1].notes == "spills; try fewer stages\nsecond line");
    CHECK(variants[2].id == copy);
    CHECK(variants[2].config == variants[0].config);
    CHECK(variants[2].notes == "first try");
    CHECK(s.findVariant("gemm_64_renamed")->id == b);
    CHECK_FALSE(s.findVariant("gemm_64").has_value());

    CHECK(*s.artifactOf(a, ArtifactKind::Source) == "extern \"C\" __global__ void k() {}");
    CHECK(*s.artifact(ptxHash) == ".version 8.0");
    CHECK(*s.artifactOf(a, ArtifactKind::Sass) == binary);
    CHECK(s.artifactOf(a, ArtifactKind::Resources)->empty());
    CHECK(s.artifactsOf(a).size() == 4);
    CHECK(s.artifactsOf(b).size() == 1);
    CHECK(s.artifactsOf(copy).size() == 4);  // links copied, runs not
    CHECK(s.runsOf(copy).empty());

    const auto runs = s.runsOf(a);
    REQUIRE(runs.size() == 3);
    requireSameReport(runs[0].report, sampleReport("gemm_128", 1.5));
    requireSameReport(runs[1].report, sampleReport("gemm_128", 1.25, false));
    CHECK(runs[0].calibrationJson == R"({"device":"H100","copy_gbs":3000})");
    CHECK(runs[1].calibrationJson.empty());
    CHECK(runs[0].device == "NVIDIA H100 80GB HBM3");
    CHECK(runs[0].id < runs[1].id);

    const auto summaries = s.summaries();
    REQUIRE(summaries.size() == 3);
    CHECK(summaries[0].runCount == 3);
    REQUIRE(summaries[0].bestMs);
    CHECK(*summaries[0].bestMs == 1.25);  // the failed 9 ms run is not a best time
    CHECK(summaries[1].runCount == 0);
    CHECK_FALSE(summaries[1].bestMs);

    const auto progress = s.allTutorialProgress();
    REQUIRE(progress.size() == 2);
    CHECK(progress[0].tutorialId == "matmul");
    CHECK(s.tutorialProgress("vector_add")->step == 3);
    CHECK(s.tutorialProgress("vector_add")->state == "done");
    CHECK_FALSE(s.tutorialProgress("fusion"));
    CHECK(s.integrityCheck() == "ok");
}

TEST_CASE("deleting a variant removes its runs, links and orphaned artifacts", "[store]") {
    SessionStore s = SessionStore::create(freshPath("delete"));
    const auto a = s.addVariant("a", "sm_90", gemmConfig("128"));
    const auto b = s.addVariant("b", "sm_90", gemmConfig("64"));
    const std::string shared = s.storeArtifact(a, ArtifactKind::Ptx, "shared ptx");
    s.linkArtifact(b, ArtifactKind::Ptx, shared);
    const std::string own = s.storeArtifact(a, ArtifactKind::Source, "a's source");
    s.addRun(a, sampleReport("a", 1.0));
    s.deleteVariant(a);
    CHECK(s.variants().size() == 1);
    CHECK_FALSE(s.artifact(own));          // nobody links it any more
    CHECK(s.artifact(shared));             // b still does
    CHECK(s.runsOf(a).empty());
    CHECK_THROWS_AS(s.deleteVariant(a), InputError);
    // Replacing a link frees the old artifact too.
    s.storeArtifact(b, ArtifactKind::Ptx, "new ptx");
    CHECK_FALSE(s.artifact(shared));
    CHECK(s.integrityCheck() == "ok");
}

TEST_CASE("a transaction commits all of its changes or none", "[store]") {
    SessionStore s = SessionStore::create(freshPath("transaction"));
    CHECK_THROWS_AS(s.transaction([&] {
        const auto id = s.addVariant("half", "sm_90", gemmConfig("128"));
        s.addRun(id, sampleReport("half", 1.0));
        throw InputError("changed my mind");
    }),
                    InputError);
    CHECK(s.variants().empty());
    s.transaction([&] {
        const auto id = s.addVariant("whole", "sm_90", gemmConfig("128"));
        s.transaction([&] { s.addRun(id, sampleReport("whole", 1.0)); });  // nested
    });
    REQUIRE(s.summaries().size() == 1);
    CHECK(s.summaries()[0].runCount == 1);
}

TEST_CASE("a session exports as JSON and as CSV with one row per run", "[store]") {
    SessionStore s = SessionStore::create(freshPath("export"));
    const auto a = s.addVariant("gemm_128", "sm_90", gemmConfig("128"), "note, with \"quotes\"");
    s.addVariant("no_runs", "sm_90", gemmConfig("64"));
    s.storeArtifact(a, ArtifactKind::Source, "src");
    s.addRun(a, sampleReport("gemm_128", 1.5), R"({"copy_gbs":3000})");
    s.addRun(a, sampleReport("gemm_128", 1.25, false));
    s.setTutorialProgress("vector_add", 1, "active");

    const nlohmann::json j = s.exportJson();
    CHECK(j["app"] == "kernel-explorer");
    CHECK(j["schema_version"] == currentSchemaVersion());
    REQUIRE(j["variants"].size() == 2);
    CHECK(j["variants"][0]["config"]["BM"] == "128");
    CHECK(j["variants"][0]["artifacts"][0]["kind"] == "source");
    REQUIRE(j["variants"][0]["runs"].size() == 2);
    CHECK(j["variants"][0]["runs"][0]["calibration"]["copy_gbs"] == 3000);
    CHECK(j["variants"][0]["runs"][1]["report"]["median_ms"] == 1.25);
    CHECK(j["tutorial_progress"][0]["tutorial"] == "vector_add");

    const std::string csv = s.exportCsv();
    std::istringstream lines(csv);
    std::string header, row1, row2, extra;
    std::getline(lines, header);
    std::getline(lines, row1);
    std::getline(lines, row2);
    CHECK_FALSE(std::getline(lines, extra));
    CHECK(header.rfind("variant,template,arch,config,notes,run_id", 0) == 0);
    CHECK(row1.rfind("gemm_128,gemm,sm_90,\"gemm:", 0) == 0);
    CHECK(row1.find("\"note, with \"\"quotes\"\"\"") != std::string::npos);
    CHECK(row1.find(",1.5,") != std::string::npos);
    CHECK(row2.find(",1.25,") != std::string::npos);
}

TEST_CASE("an older session is migrated and a newer one refused", "[store][migrations]") {
    SECTION("a version-0 file written by hand migrates to the current schema") {
        const fs::path path = freshPath("v0");
        {
            SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO meta VALUES ('app', 'kernel-explorer'), ('schema_version', '0'), ('created', '2024-01-01T00:00:00Z')");
        }
        SessionStore s = SessionStore::open(path);
        CHECK(s.schemaVersion() == currentSchemaVersion());
        const auto id = s.addVariant("after_migration", "sm_90", gemmConfig("128"));
        s.addRun(id, sampleReport("after_migration", 1.0));
        CHECK(s.exportJson()["created"] == "2024-01-01T00:00:00Z");  // meta kept
        CHECK(s.integrityCheck() == "ok");
    }
    SECTION("migrations keep the rows of earlier versions, apply in order, and are all or nothing") {
        const fs::path path = freshPath("mechanism");
        const std::vector<Migration> v1 = {{1, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)"}};
        const std::vector<Migration> v3 = {v1[0],
                                           {2, "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'unknown'"},
                                           {3, "CREATE TABLE tags (note_id INTEGER REFERENCES notes(id), tag TEXT)"}};
        const std::vector<Migration> broken = {v3[0], v3[1], v3[2], {4, "CREATE TABLE tags (oops)"}};
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        writeInitialMeta(db);
        migrate(db, 0, v1, path.string());
        db.exec("INSERT INTO notes(text) VALUES ('kept')");
        CHECK(readSchemaVersion(db, path.string()) == 1);
        migrate(db, 1, v3, path.string());
        CHECK(readSchemaVersion(db, path.string()) == 3);
        CHECK(db.execAndGet("SELECT text || '/' || author FROM notes").getString() == "kept/unknown");
        CHECK_THROWS(migrate(db, 3, broken, path.string()));
        CHECK(readSchemaVersion(db, path.string()) == 3);  // rolled back
        CHECK_THROWS_AS(migrate(db, 3, v1, path.string()), InputError);  // newer than the list
    }
    SECTION("a file from a newer Kernel Explorer is refused, untouched") {
        const fs::path path = freshPath("newer");
        { SessionStore::create(path); }
        {
            SQLite::Database db(path, SQLite::OPEN_READWRITE);
            db.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
        }
        const std::string before = readFile(path);
        requireRefused(path, "made by a newer Kernel Explorer: schema 7, this one reads up to " + std::to_string(currentSchemaVersion()));
        CHECK(readFile(path) == before);
    }
}

TEST_CASE("damaged, foreign and non-session files give a clear error", "[store][corrupt]") {
    SECTION("random bytes") {
        const fs::path p = freshPath("random");
        std::mt19937 rng(7);
        std::string bytes(10000, '\0');
        for (char& c : bytes) c = static_cast<char>(rng());
        writeFile(p, bytes);
        requireRefused(p, "not an SQLite file");
    }
    SECTION("an empty file, left empty") {
        const fs::path p = freshPath("empty");
        writeFile(p, "");
        requireRefused(p, "empty");
        CHECK(fs::file_size(p) == 0);
    }
    SECTION("a text file") {
        const fs::path p = freshPath("text");
        writeFile(p, "name,value\nBM,128\n");
        requireRefused(p, "not an SQLite file");
    }
    SECTION("another application's SQLite database, left unchanged") {
        const fs::path p = freshPath("foreign");
        {
            SQLite::Database db(p, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            db.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)");
        }
        const std::string before = readFile(p);
        requireRefused(p, "without a meta table");
        CHECK(readFile(p) == before);
        {
            SQLite::Database db(p, SQLite::OPEN_READWRITE);
            db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('app', 'photo-album')");
        }
        requireRefused(p, "'photo-album'");
    }
    SECTION("truncated copies of a real session") {
        const fs::path original = freshPath("original");
        {
            SessionStore s = SessionStore::create(original);
            for (int i = 0; i < 40; ++i) {
                const auto id = s.addVariant("v" + std::to_string(i), "sm_90", gemmConfig(std::to_string(16 * (i + 1))));
                s.storeArtifact(id, ArtifactKind::Source, std::string(3000, static_cast<char>('a' + i % 26)) + std::to_string(i));
                s.addRun(id, sampleReport("v" + std::to_string(i), 1.0 + i));
            }
        }
        const std::string bytes = readFile(original);
        REQUIRE(bytes.size() > 40000);
        for (const std::size_t keep : {std::size_t(10), std::size_t(100), std::size_t(4096), bytes.size() / 2, bytes.size() - 4096}) {
            INFO("kept " << keep << " of " << bytes.size() << " bytes");
            const fs::path p = freshPath("truncated");
            writeFile(p, bytes.substr(0, keep));
            try {
                SessionStore s = SessionStore::open(p);
                FAIL("a truncated session opened");
            } catch (const InputError& e) {
                CHECK(std::string(e.what()).find(p.string()) != std::string::npos);
            }
        }
    }
    SECTION("a missing file and a folder") {
        requireRefused(scratch() / "no-such-session.kxs", "does not exist");
        requireRefused(scratch(), "not a file");
    }
}

TEST_CASE("a session without write permission opens read-only", "[store][readonly]") {
    const fs::path path = freshPath("readonly");
    std::int64_t id = 0;
    {
        SessionStore s = SessionStore::create(path);
        id = s.addVariant("kept", "sm_90", gemmConfig("128"));
        s.addRun(id, sampleReport("kept", 2.0));
    }
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string before = readFile(path);
    {
        SessionStore s = SessionStore::open(path);
        CHECK(s.readOnly());
        REQUIRE(s.variants().size() == 1);
        CHECK(s.runsOf(id).size() == 1);
        CHECK_FALSE(s.exportCsv().empty());
        try {
            s.addVariant("new", "sm_90", gemmConfig("64"));
            FAIL("wrote to a read-only session");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("read-only") != std::string::npos);
            CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
        }
        CHECK_THROWS_AS(s.setNotes(id, "x"), InputError);
        CHECK_THROWS_AS(s.deleteVariant(id), InputError);
        CHECK_THROWS_AS(s.setTutorialProgress("t", 1, "active"), InputError);
        CHECK_THROWS_AS(s.putArtifact(ArtifactKind::Ptx, "x"), InputError);
    }
    CHECK(readFile(path) == before);
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    CHECK_FALSE(SessionStore::open(path).readOnly());
}

// The child writes variant after variant, each with its source and 1 to 4 runs in one
// transaction, and reports each commit through a pipe; the parent kills it with SIGKILL at a
// random moment, then checks that the file opens, is intact, holds every reported commit, and
// holds no partial one.
TEST_CASE("SIGKILL in the middle of writing loses at most the change in flight", "[store][crash]") {
    const fs::path path = freshPath("crash");
    { SessionStore::create(path); }
    auto runsFor = [](int i) { return 1 + i % 4; };
    auto sourceFor = [](const std::string& name) { return "// source of " + name + "\n" + std::string(200, 'x'); };
    std::mt19937 rng(20240531);
    std::uniform_int_distribution<int> delayMs(1, 30);
    int kills = 0, totalCommitted = 0;

    for (int iteration = 0; iteration < 40; ++iteration) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::close(fds[0]);
            try {
                SessionStore s = SessionStore::open(path);
                const int ready = -1;
                if (::write(fds[1], &ready, sizeof ready) != sizeof ready) ::_exit(4);
                for (int i = 0;; ++i) {
                    const std::string name = "it" + std::to_string(iteration) + "_" + std::to_string(i);
                    s.transaction([&] {
                        const auto id = s.addVariant(name, "sm_90", gemmConfig(std::to_string(16 + i % 7)));
                        s.storeArtifact(id, ArtifactKind::Source, sourceFor(name));
                        for (int r = 0; r < runsFor(i); ++r) s.addRun(id, sampleReport(name, 1.0 + r), "{\"copy_gbs\":3000}");
                    });
                    if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(4);
                }
            } catch (...) {
                ::_exit(3);
            }
        }
        ::close(fds[1]);
        // Most kills land while writing (after the child is ready); every fifth may land while
        // it opens the file and recovers the previous child's WAL.
        if (iteration % 5 != 0) {
            int first = 0;
            REQUIRE(::read(fds[0], &first, sizeof first) == sizeof first);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs(rng)));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        INFO("iteration " << iteration);
        REQUIRE(WIFSIGNALED(status));  // not an early exit from an error in the child
        ++kills;
        int lastReported = -1, value = 0;
        while (::read(fds[0], &value, sizeof value) == sizeof value) lastReported = std::max(lastReported, value);
        ::close(fds[0]);

        SessionStore s = SessionStore::open(path);
        REQUIRE(s.integrityCheck() == "ok");
        const std::string prefix = "it" + std::to_string(iteration) + "_";
        int committed = 0;
        for (const VariantSummary& v : s.summaries()) {
            const std::string& name = v.variant.name;
            const int i = std::stoi(name.substr(name.find('_') + 1));
            REQUIRE(v.runCount == runsFor(i));  // no partial transaction, in any iteration
            if (name.rfind(prefix, 0) == 0) ++committed;
        }
        // Every reported commit is there; at most one more (committed, killed before reporting).
        CHECK(committed >= lastReported + 1);
        CHECK(committed <= lastReported + 2);
        totalCommitted += committed;
        for (int i = std::max(0, committed - 3); i < committed; ++i) {
            const std::string name = prefix + std::to_string(i);
            const auto v = s.findVariant(name);
            REQUIRE(v);
            CHECK(*s.artifactOf(v->id, ArtifactKind::Source) == sourceFor(name));
            const auto runs = s.runsOf(v->id);
            REQUIRE(static_cast<int>(runs.size()) == runsFor(i));
            for (std::size_t r = 0; r < runs.size(); ++r) {
                CHECK(runs[r].report.variant == name);
                CHECK(runs[r].report.medianMs == 1.0 + static_cast<double>(r));
                CHECK(runs[r].calibrationJson == "{\"copy_gbs\":3000}");
            }
        }
    }
    CHECK(kills == 40);
    CHECK(totalCommitted > 40);  // the kills really landed among writes
}
