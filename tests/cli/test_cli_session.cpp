// kx session new|list|show|export and kx run --session, as a user runs them. Sessions with runs
// are written through the engine here (recording a real run needs a GPU: tests/gpu).
#include "kx_process.hpp"

#include "store/session_store.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace kx::test;
using namespace kx::engine;

namespace {

fs::path freshSession(const std::string& stem) {
    const fs::path p = scratchDir() / (stem + ".kxs");
    fs::remove(p);
    return p;
}

RunReport report(const std::string& variant, double ms, bool passed = true) {
    RunReport r;
    r.ok = true;
    r.variant = variant;
    r.deviceName = "NVIDIA H100 80GB HBM3";
    r.deviceArch = "sm_90";
    r.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    r.medianMs = ms;
    r.minMs = ms;
    r.maxMs = ms;
    r.reps = 20;
    r.tflops = 137.4 / ms;
    r.correctness.passed = passed;
    r.correctness.method = "float64";
    r.pctOfComputeCeiling = 64.5;
    r.computeCeilingName = "FP16 tensor (measured)";
    BaselineReport base;
    base.id = "cublas_gemm";
    base.name = "cuBLAS f16";
    base.medianMs = 0.2;
    base.tflops = 680;
    base.speedup = 0.9;
    r.baselines.push_back(base);
    return r;
}

// Two variants: one with three runs (one failed its check) and its artifacts, one without runs.
fs::path populated(const std::string& stem) {
    const fs::path p = freshSession(stem);
    SessionStore s = SessionStore::create(p);
    Config c;
    c.templateId = "gemm";
    c.values = {{"BM", "128"}, {"BN", "128"}, {"BK", "32"}};
    const auto a = s.addVariant("gemm_128x128x32", "sm_90", c, "the fast one");
    s.storeArtifact(a, ArtifactKind::Source, "extern \"C\" __global__ void gemm() {}");
    s.storeArtifact(a, ArtifactKind::Resources,
                    R"([{"function":"gemm","registers":168,"shared_bytes":32768,"stack_frame_bytes":0,"spill_store_bytes":0,"spill_load_bytes":0,"barriers":1}])");
    s.addRun(a, report("gemm_128x128x32", 0.25), R"({"copy_gbs":3000})");
    s.addRun(a, report("gemm_128x128x32", 0.21));
    s.addRun(a, report("gemm_128x128x32", 0.1, false));
    c.values["BM"] = "64";
    s.addVariant("gemm_64x128x32", "sm_90", c);
    return p;
}

bool oneLine(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST_CASE("kx session new creates a session and never overwrites", "[cli][session]") {
    const fs::path p = freshSession("new");
    const Outcome o = runKx("session new " + p.string());
    INFO(o.err);
    CHECK(o.exitCode == 0);
    CHECK(fs::exists(p));
    CHECK(SessionStore::open(p).variants().empty());
    const Outcome again = runKx("session new " + p.string());
    CHECK(again.exitCode == 2);
    CHECK(oneLine(again.err));
    CHECK(again.err.find("already exists") != std::string::npos);
    const Outcome list = runKx("session list " + p.string());
    CHECK(list.exitCode == 0);
    CHECK(list.out.find("no variants") != std::string::npos);
}

TEST_CASE("kx session list shows each variant's run count and best time", "[cli][session]") {
    const fs::path p = populated("list");
    const Outcome o = runKx("session list " + p.string());
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    std::istringstream lines(o.out);
    std::string header, first, second;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    CHECK(header.find("RUNS") != std::string::npos);
    CHECK(first.find("gemm_128x128x32") == 0);
    CHECK(first.find(" 3 ") != std::string::npos);
    CHECK(first.find("0.2100") != std::string::npos);  // the failed 0.1 ms run is not the best
    CHECK(second.find("gemm_64x128x32") == 0);
    CHECK(second.find(" 0 ") != std::string::npos);
}

TEST_CASE("kx session show prints config, notes, resources and runs", "[cli][session]") {
    const fs::path p = populated("show");
    const Outcome all = runKx("session show " + p.string());
    INFO(all.err);
    REQUIRE(all.exitCode == 0);
    CHECK(all.out.find("2 variants") != std::string::npos);
    CHECK(all.out.find("gemm_64x128x32") != std::string::npos);

    const Outcome one = runKx("session show " + p.string() + " --variant gemm_128x128x32");
    REQUIRE(one.exitCode == 0);
    CHECK(one.out.find("gemm_64x128x32") == std::string::npos);
    CHECK(one.out.find("gemm:BK=32,BM=128,BN=128") != std::string::npos);
    CHECK(one.out.find("the fast one") != std::string::npos);
    CHECK(one.out.find("gemm: 168 registers, 32768 B shared") != std::string::npos);
    CHECK(one.out.find("runs       3") != std::string::npos);
    CHECK(one.out.find("PASS 0.2500 ms") != std::string::npos);
    CHECK(one.out.find("FAIL 0.1000 ms") != std::string::npos);
    CHECK(one.out.find("64.5% of FP16 tensor (measured)") != std::string::npos);
    CHECK(one.out.find("(calibrated)") != std::string::npos);

    const Outcome missing = runKx("session show " + p.string() + " --variant nope");
    CHECK(missing.exitCode == 2);
    CHECK(oneLine(missing.err));
    CHECK(missing.err.find("'nope'") != std::string::npos);
}

TEST_CASE("kx session note sets and clears a variant's notes", "[cli][session]") {
    const fs::path p = populated("note");
    const Outcome set = runKx("session note " + p.string() + " gemm_64x128x32 'more blocks per SM, fewer registers'");
    INFO(set.err);
    REQUIRE(set.exitCode == 0);
    CHECK(runKx("session show " + p.string() + " --variant gemm_64x128x32").out.find("more blocks per SM, fewer registers") != std::string::npos);
    REQUIRE(runKx("session note " + p.string() + " gemm_64x128x32 ''").exitCode == 0);
    CHECK(runKx("session show " + p.string() + " --variant gemm_64x128x32").out.find("notes") == std::string::npos);
    const Outcome missing = runKx("session note " + p.string() + " nope text");
    CHECK(missing.exitCode == 2);
    CHECK(missing.err.find("'nope'") != std::string::npos);
}

TEST_CASE("kx session export writes JSON or CSV", "[cli][session]") {
    const fs::path p = populated("export");
    const Outcome json = runKx("session export " + p.string());
    INFO(json.err);
    REQUIRE(json.exitCode == 0);
    const nlohmann::json j = nlohmann::json::parse(json.out);
    CHECK(j["app"] == "kernel-explorer");
    REQUIRE(j["variants"].size() == 2);
    CHECK(j["variants"][0]["runs"].size() == 3);
    CHECK(j["variants"][0]["runs"][1]["report"]["median_ms"] == 0.21);

    const fs::path out = scratchDir() / "export.csv";
    fs::remove(out);
    const Outcome csv = runKx("session export " + p.string() + " --format csv -o " + out.string());
    REQUIRE(csv.exitCode == 0);
    CHECK(csv.out.empty());
    const std::string text = slurp(out);
    CHECK(std::count(text.begin(), text.end(), '\n') == 4);  // header + one row per run
    CHECK(text.rfind("variant,template,arch,config,", 0) == 0);
    CHECK(text.find("\ngemm_128x128x32,gemm,sm_90,\"gemm:BK=32,BM=128,BN=128\",the fast one,") != std::string::npos);

    const Outcome bad = runKx("session export " + p.string() + " --format xml");
    CHECK(bad.exitCode == 2);
}

TEST_CASE("kx session refuses files that are not sessions with exit 2 and one line", "[cli][session]") {
    const fs::path garbage = freshSession("garbage");
    std::ofstream(garbage) << "this is not a database\n";
    const fs::path foreign = freshSession("foreign");
    {
        SQLite::Database db(foreign, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE t (x)");
    }
    const fs::path newer = populated("newer");
    {
        SQLite::Database db(newer, SQLite::OPEN_READWRITE);
        db.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    }
    for (const auto& [file, expected] : std::vector<std::pair<fs::path, std::string>>{
             {garbage, "not an SQLite file"},
             {foreign, "not a Kernel Explorer session"},
             {newer, "newer Kernel Explorer: schema 7"},
             {scratchDir() / "missing.kxs", "does not exist"}}) {
        for (const char* command : {"list", "show", "export"}) {
            const Outcome o = runKx(std::string("session ") + command + " " + file.string());
            INFO(command << " " << file << ": " << o.err);
            CHECK(o.exitCode == 2);
            CHECK(oneLine(o.err));
            CHECK(o.err.find(file.string()) != std::string::npos);
            CHECK(o.err.find(expected) != std::string::npos);
        }
    }
    const Outcome noFile = runKx("session list");
    CHECK(noFile.exitCode == 2);
}

TEST_CASE("kx run --session checks the session before running", "[cli][session]") {
    const fs::path garbage = freshSession("run-garbage");
    std::ofstream(garbage) << "garbage";
    const Outcome bad = runKx("run gemm --arch sm_90 --session " + garbage.string());
    CHECK(bad.exitCode == 2);
    CHECK(bad.err.find("not an SQLite file") != std::string::npos);
    const Outcome noFolder = runKx("run gemm --arch sm_90 --session " + (scratchDir() / "no-such-dir" / "s.kxs").string());
    CHECK(noFolder.exitCode == 2);
    CHECK(noFolder.err.find("cannot create the session") != std::string::npos);
    // A run that cannot happen (no GPU here) leaves no new session file behind.
    const fs::path fresh = freshSession("run-fresh");
    const Outcome run = runKx("run gemm --arch sm_90 --size M=256,N=256,K=256 --reps 2 --session " + fresh.string());
    INFO(run.err);
    if (run.err.find("cannot run") != std::string::npos) {
        CHECK(run.exitCode == 1);
        CHECK_FALSE(fs::exists(fresh));
    } else if (run.exitCode == 0) {
        // With a GPU: the run is recorded with its artifacts.
        SessionStore s = SessionStore::open(fresh);
        REQUIRE(s.summaries().size() == 1);
        CHECK(s.summaries()[0].runCount == 1);
        CHECK(s.artifactsOf(s.summaries()[0].variant.id).size() >= 2);
    }
}
