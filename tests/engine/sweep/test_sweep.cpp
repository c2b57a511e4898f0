// Running sweeps without a GPU: pruning by constraints and by resources, the compile cache
// reused, cancel, runs that cannot be made, recording into a session, autotune's statistics
// and the Slurm job writer.
#include "../test_support.hpp"

#include "arch/arch_database.hpp"
#include "store/session_store.hpp"
#include "sweep/autotune.hpp"
#include "sweep/slurm.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep.hpp"
#include "sweep/sweep_record.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

struct Fixture {
    TemplateLibrary library = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    std::shared_ptr<const Template> map = library.find("map");
    const Arch& sm90 = *arches.findArch("sm_90");
};

fs::path scratch(const std::string& name) {
    static int counter = 0;
    const fs::path dir = fs::temp_directory_path() / ("kx-sweep-run-" + std::to_string(::getpid())) / (name + std::to_string(++counter));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::map<std::string, SweepPoint> byVec(const std::vector<SweepPoint>& points) {
    std::map<std::string, SweepPoint> out;
    for (const SweepPoint& p : points) out[p.config.at("VEC")] = p;
    return out;
}

// map over every load width: VEC=8 of f32 breaks a constraint (32-byte loads), the others compile.
std::vector<Config> vecConfigs(const Fixture& f) {
    return spaceConfigs(makeSpace(*f.map, {f.map->defaultConfig()}, {"VEC"}));
}

}  // namespace

TEST_CASE("a compile-only sweep keeps every config with its outcome and reason", "[sweep][run]") {
    Fixture f;
    SweepOptions options;
    options.compileThreads = 2;
    options.rooflineDevice = rooflineDeviceFor(f.arches, f.sm90);
    REQUIRE(options.rooflineDevice);
    CHECK(options.rooflineDevice->id == "h100_sxm");
    const fs::path cacheDir = scratch("cache");
    Compiler compiler(cacheDir);

    Sweep plain(f.map, f.sm90, vecConfigs(f), options);
    plain.run(compiler, nullptr);
    const auto points = byVec(plain.points());
    REQUIRE(points.size() == 4);
    CHECK(points.at("8").status == PointStatus::Pruned);
    CHECK_THAT(points.at("8").reason, Catch::StartsWith("violates 1 constraint: "));
    CHECK(points.at("8").violations.size() == 1);
    CHECK_FALSE(points.at("8").resources);
    for (const char* vec : {"1", "2", "4"}) {
        const SweepPoint& p = points.at(vec);
        INFO(p.name);
        CHECK(p.status == PointStatus::Compiled);
        CHECK(p.reason.empty());
        REQUIRE(p.resources);
        CHECK(p.resources->registers > 0);
        CHECK(p.resources->threadsPerBlock == 256);
        REQUIRE(p.prediction);
        CHECK(p.prediction->occupancy > 0);
        CHECK(p.prediction->occupancy <= 1);
        CHECK(p.prediction->ai > 0);
        CHECK(p.prediction->rooflineTflops > 0);  // the H100's DRAM roof at map's intensity
        CHECK(p.prediction->memoryBound);
        CHECK_FALSE(p.run);
    }
    const SweepCounts c = plain.counts();
    CHECK(c.total == 4);
    CHECK(c.pending == 0);
    CHECK(c.pruned == 1);
    CHECK(c.compiled == 3);
    CHECK(c.compilesTotal == 3);
    CHECK(c.compilesDone == 3);
    CHECK(plain.takeFinished().size() == 4);
    CHECK(plain.takeFinished().empty());

    SECTION("a register limit prunes after compiling, with the figures kept") {
        const int fewest = std::min({points.at("1").resources->registers, points.at("2").resources->registers, points.at("4").resources->registers});
        SweepOptions limited = options;
        limited.maxRegisters = fewest;
        Sweep sweep(f.map, f.sm90, vecConfigs(f), limited);
        sweep.run(compiler, nullptr);
        int pruned = 0;
        for (const SweepPoint& p : sweep.points()) {
            if (p.resources && p.resources->registers > fewest) {
                CHECK(p.status == PointStatus::Pruned);
                CHECK_THAT(p.reason, Catch::Contains("registers per thread, over the limit of " + std::to_string(fewest)));
                CHECK(p.prediction);
                ++pruned;
            }
        }
        CHECK(pruned >= 1);
    }
    SECTION("a second sweep takes its compiles from the disk cache") {
        Compiler fresh(cacheDir);
        Sweep again(f.map, f.sm90, vecConfigs(f), options);
        again.run(fresh, nullptr);
        for (const SweepPoint& p : again.points())
            if (p.status == PointStatus::Compiled) CHECK(p.fromCache);
    }
}

TEST_CASE("a stopped sweep marks what it did not reach, and a run that cannot be made says why", "[sweep][run]") {
    Fixture f;
    Compiler compiler(fs::path{});
    SweepOptions options;
    options.compileThreads = 1;
    SECTION("cancelled before it starts: constraints still judged, nothing compiled") {
        Sweep sweep(f.map, f.sm90, vecConfigs(f), options);
        sweep.cancel();
        sweep.run(compiler, nullptr);
        const auto points = byVec(sweep.points());
        CHECK(points.at("8").status == PointStatus::Pruned);
        for (const char* vec : {"1", "2", "4"}) {
            CHECK(points.at(vec).status == PointStatus::NotReached);
            CHECK(points.at(vec).reason == "not compiled: the sweep was stopped");
        }
        CHECK(sweep.counts().notReached == 3);
        CHECK(sweep.takeFinished().size() == 4);
    }
    SECTION("a compiled config whose run cannot be made ends as run_failed with the runner's reason") {
        options.devices = {0};
        RunnerPool runners("/nonexistent/kx-runner");
        Sweep sweep(f.map, f.sm90, {f.map->defaultConfig()}, options);
        sweep.run(compiler, &runners);
        const SweepPoint p = sweep.points().front();
        CHECK(p.status == PointStatus::RunFailed);
        CHECK_THAT(p.reason, Catch::StartsWith("run failed: "));
        CHECK_THAT(p.reason, Catch::Contains("cannot start the GPU runner '/nonexistent/kx-runner'"));
        CHECK(p.resources);  // compiled before it failed to run
        CHECK(p.run);
        CHECK(sweep.counts().runsDone == 1);
        CHECK(sweep.counts().runFailed == 1);
    }
}

TEST_CASE("sweep points are recorded in the session with their variants, and read back", "[sweep][store]") {
    Fixture f;
    Compiler compiler(fs::path{});
    SweepOptions options;
    options.compileThreads = 2;
    options.rooflineDevice = rooflineDeviceFor(f.arches, f.sm90);
    Sweep sweep(f.map, f.sm90, vecConfigs(f), options);
    sweep.run(compiler, nullptr);

    const fs::path file = scratch("store") / "sweep.kxs";
    SessionStore store = SessionStore::create(file);
    StoredSweep s;
    s.uid = newSweepUid();
    s.name = "map widths";
    s.templateId = "map";
    s.arch = "sm_90";
    const std::int64_t id = store.findOrAddSweep(s);
    for (const SweepPoint& p : sweep.takeFinished()) recordSweepPoint(store, id, "sm_90", p);
    CHECK(store.findOrAddSweep(s) == id);

    const auto stored = store.sweepPoints(id);
    REQUIRE(stored.size() == 4);
    CHECK(store.variants().size() == 3);  // the compiled ones; the pruned one compiled nothing
    for (const StoredSweepPoint& p : stored) {
        INFO(p.name);
        if (p.status == "pruned") {
            CHECK_FALSE(p.variantId);
            CHECK_THAT(p.reason, Catch::Contains("constraint"));
        } else {
            CHECK(p.status == "compiled");
            REQUIRE(p.variantId);
            CHECK(store.artifactOf(*p.variantId, ArtifactKind::Resources));
            CHECK(store.artifactOf(*p.variantId, ArtifactKind::Ptx));
        }
    }
    const auto back = byVec(storedSweepPoints(store, id, "map"));
    const auto original = byVec(sweep.points());
    for (const auto& [vec, p] : original) {
        INFO(vec);
        const SweepPoint& q = back.at(vec);
        CHECK(q.status == p.status);
        CHECK(q.reason == p.reason);
        CHECK(q.name == p.name);
        CHECK(sweepPointJson(q) == sweepPointJson(p));
    }
    // Recording a point again replaces it: one point per config.
    recordSweepPoint(store, id, "sm_90", original.at("1"));
    CHECK(store.sweepPoints(id).size() == 4);

    const std::string csv = sweepCsv(*f.map, sweep.points());
    CHECK_THAT(csv, Catch::StartsWith("op,dtype,BLOCK,ITEMS,VEC,loop,name,status,reason,registers,"));
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
    CHECK_THAT(csv, Catch::Contains(",pruned,violates 1 constraint: A load of 8 elements"));
}

TEST_CASE("autotune re-times the fastest in interleaved rounds and picks the lowest median", "[sweep][autotune]") {
    std::vector<SweepPoint> points(5);
    const double sweepMs[] = {1.0, 0.5, 0.7, 0.6, 0.0};
    for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].index = i;
        points[i].name = "cfg" + std::to_string(i);
        if (sweepMs[i] > 0) {
            points[i].status = PointStatus::Measured;
            points[i].run = RunReport{};
            points[i].run->ok = true;
            points[i].run->medianMs = sweepMs[i];
        } else {
            points[i].status = PointStatus::Pruned;  // never a candidate
        }
    }
    // Re-timed, cfg3 is really the fastest; cfg1's sweep time was lucky.
    std::map<std::string, std::vector<double>> rounds = {
        {"cfg1", {0.62, 0.64, 0.61}}, {"cfg3", {0.58, 0.60, 0.59}}, {"cfg2", {0.70, 0.71, 0.69}}};
    std::vector<std::string> order;
    const AutotuneResult r = autotune(points, 3, 3, [&](const SweepPoint& p) {
        order.push_back(p.name);
        RunReport report;
        report.ok = true;
        auto& left = rounds.at(p.name);
        report.medianMs = left.front();
        left.erase(left.begin());
        return report;
    });
    REQUIRE(r.candidates.size() == 3);
    CHECK(order == std::vector<std::string>{"cfg1", "cfg3", "cfg2", "cfg1", "cfg3", "cfg2", "cfg1", "cfg3", "cfg2"});
    REQUIRE(r.winner == 0);
    const AutotuneCandidate& w = r.candidates.front();
    CHECK(w.name == "cfg3");
    CHECK(w.medianMs == Approx(0.59));
    CHECK(w.minMs == Approx(0.58));
    CHECK(w.maxMs == Approx(0.60));
    CHECK(w.spreadPct == Approx(100.0 * 0.02 / 0.59));
    CHECK(w.sweepMs == Approx(0.6));
    CHECK(r.candidates[1].name == "cfg1");

    // A failing candidate goes last with its reason; nothing measured gives no winner.
    const AutotuneResult failing = autotune(points, 1, 2, [](const SweepPoint&) {
        RunReport report;
        report.error = "the kernel trapped";
        return report;
    });
    REQUIRE(failing.candidates.size() == 1);
    CHECK(failing.winner == -1);
    CHECK(failing.candidates.front().error == "the kernel trapped");
}

TEST_CASE("a Slurm job deals the configs round-robin into shard lists and a job-array script", "[sweep][slurm]") {
    Fixture f;
    const auto configs = spaceConfigs(makeSpace(*f.map, {f.map->defaultConfig()}, {"BLOCK"}));
    REQUIRE(configs.size() == 5);
    SlurmJob job;
    job.dir = scratch("slurm");
    job.shards = 2;
    job.kxPath = "/opt/kx dir/kx";
    job.sweepArgs = {"map", "--arch", "sm_90", "--sweep-id", "abc", "--size", "n=1048576"};
    const auto files = writeSlurmJob(job, configs);
    REQUIRE(files.size() == 3);
    CHECK(files[0].filename() == "sweep.sbatch");
    const auto shard0 = readConfigList(*f.map, f.map->defaultConfig(), files[1]);
    const auto shard1 = readConfigList(*f.map, f.map->defaultConfig(), files[2]);
    REQUIRE(shard0.size() == 3);
    REQUIRE(shard1.size() == 2);
    CHECK(shard0[0] == configs[0]);
    CHECK(shard1[0] == configs[1]);
    CHECK(shard0[2] == configs[4]);
    std::ifstream in(files[0]);
    const std::string script((std::istreambuf_iterator<char>(in)), {});
    CHECK_THAT(script, Catch::Contains("#SBATCH --array=0-1\n"));
    CHECK_THAT(script, Catch::Contains("KX=${KX:-'/opt/kx dir/kx'}"));
    CHECK_THAT(script, Catch::Contains("sweep map --arch sm_90 --sweep-id abc --size n=1048576 --devices all --configs \"$DIR/shards/shard_$SHARD.txt\""));
    CHECK_THAT(script, Catch::Contains("--session \"$DIR/sessions/shard_$SHARD.kxs\""));

    // More shards than configs: only the shards with configs, and an array that long.
    job.dir = scratch("slurm_many");
    job.shards = 8;
    CHECK(writeSlurmJob(job, configs).size() == 6);
}
