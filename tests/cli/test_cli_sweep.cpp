// kx sweep and kx session merge as a user runs them, without a GPU: compile-only sweeps into
// sessions, CSV and JSON, bad input, Ctrl-C, a Slurm job whose shard tasks really run and whose
// session files merge (twice, to the same result), and compiler flags fixed, varied and named by
// preselected sets.
#include "kx_process.hpp"

#include "store/session_store.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using namespace kx::test;
using namespace kx::engine;

namespace {

fs::path fresh(const std::string& name) {
    const fs::path p = scratchDir() / name;
    fs::remove_all(p);
    return p;
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("kx sweep --compile-only records every config with its outcome", "[cli][sweep]") {
    const fs::path session = fresh("widths.kxs"), csv = fresh("widths.csv");
    const Outcome o = runKx("sweep map --arch sm_90 --vary VEC --compile-only -j 2 --session " + session.string() + " --csv " + csv.string());
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK_THAT(o.out, Catch::Contains("compiled       map_add_f32_b256_i2_v1_once"));
    CHECK_THAT(o.out, Catch::Contains("violates 1 constraint: A load of 8 elements"));
    CHECK_THAT(o.out, Catch::Contains("* ROOF: predicted, not measured"));
    CHECK_THAT(o.err, Catch::Contains("kx: sweep 4/4 configs"));  // plain progress lines: stderr is not a terminal
    CHECK_THAT(o.err, Catch::Contains("compile only"));
    CHECK(lines(slurp(csv)) == 5);

    const SessionStore store = SessionStore::open(session);
    REQUIRE(store.sweeps().size() == 1);
    const StoredSweep sweep = store.sweeps().front();
    CHECK(sweep.state == "finished");
    CHECK(sweep.templateId == "map");
    const auto points = store.sweepPoints(sweep.id);
    REQUIRE(points.size() == 4);
    int pruned = 0;
    for (const auto& p : points) {
        if (p.status == "pruned") {
            ++pruned;
            CHECK_FALSE(p.variantId);
        } else {
            CHECK(p.status == "compiled");
            CHECK(p.variantId);
            const auto result = nlohmann::json::parse(p.resultJson);
            CHECK(result["predicted"]["occupancy"].get<double>() > 0);
            CHECK(result["measured"].is_null());
        }
    }
    CHECK(pruned == 1);
    CHECK(store.variants().size() == 3);

    // JSON on stdout: every point, predicted figures apart from measured ones.
    const Outcome json = runKx("sweep map --arch sm_90 --vary VEC=1,2 --vary BLOCK=128,256 --compile-only -j 2 --json");
    REQUIRE(json.exitCode == 0);
    const auto doc = nlohmann::json::parse(json.out);
    CHECK(doc["sweep"]["space_size"] == 4);
    REQUIRE(doc["points"].size() == 4);
    for (const auto& p : doc["points"]) {
        CHECK(p["status"] == "compiled");
        CHECK(p["resources"]["registers"].get<int>() > 0);
        CHECK(p["predicted"].is_object());
    }
}

TEST_CASE("kx sweep refuses bad input with one line and exit 2", "[cli][sweep]") {
    auto refused = [](const std::string& args, const std::string& expected) {
        const Outcome o = runKx(args);
        INFO(args << "\n" << o.err);
        CHECK(o.exitCode == 2);
        CHECK_THAT(o.err, Catch::Contains(expected));
    };
    refused("sweep gemm_mma --arch sm_90 --vary BM=48 --compile-only", "BM=48 is not allowed: BM must be one of 32, 64, 128, 256");
    refused("sweep gemm_mma --arch sm_90 --vary TILE --compile-only", "--vary 'TILE': not a parameter of gemm_mma");
    refused("sweep gemm_mma --arch sm_90 --preselected nope --compile-only", "no preselected set 'nope' of gemm_mma for sm_90");
    refused("sweep gemm_mma --arch sm_99 --compile-only", "unknown arch 'sm_99'");
    refused("sweep gemm_mma --arch gfx942 --compile-only", "not an NVIDIA arch");
    refused("sweep gemm_mma --arch sm_90 --autotune 3 --compile-only", "--autotune times configs on a GPU");
    refused("sweep gemm_mma --arch sm_90 --configs /nonexistent/list.txt --compile-only", "cannot read the config list /nonexistent/list.txt");
}

TEST_CASE("kx sweep --valid-only leaves out configs that break constraints before drawing a sample", "[cli][sweep]") {
    const fs::path dir = fresh("valid_only");
    const Outcome o = runKx("sweep map --arch sm_90 --vary BLOCK --vary ITEMS --vary VEC --valid-only --sample 30 --seed 2 --emit-slurm " +
                            dir.string() + " --shards 1");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK_THAT(o.err, Catch::Contains("kx: --valid-only: 21 of the space's 80 configs break constraints and are left out"));
    const std::string list = slurp(dir / "shards" / "shard_000.txt");
    CHECK(lines(list) == 30);
    CHECK(list.find("VEC=8") == std::string::npos);
}

TEST_CASE("kx sweep says which register caps ptxas did not keep", "[cli][sweep][flags]") {
    // The stencil declares __launch_bounds__: with CUDA 13.0 ptxas held this config to a cap of 64
    // but kept 106 registers under a cap of 96.
    const Outcome o = runKx("sweep stencil --arch sm_90 --set order=8,strategy=smem_async --vary maxrregcount=64,96 --compile-only -j 2");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    const auto line = [&](const std::string& name) {
        const std::size_t at = o.out.find(name + " ");
        return at == std::string::npos ? std::string() : o.out.substr(at, o.out.find('\n', at) - at);
    };
    CHECK(line("stencil_o8_smem_async_64x8_z64_p1_r96").find("register cap 96 not kept: ") != std::string::npos);
    CHECK(line("stencil_o8_smem_async_64x8_z64_p1_r64").find("not kept") == std::string::npos);
    CHECK_FALSE(line("stencil_o8_smem_async_64x8_z64_p1_r64").empty());
}

// Each config's waves on the roofline's device (an H200 named with --roofline-device, 132 SMs):
// conv's backward weight with 128 x 128 tiles (two blocks per SM) on ResNet-50's stage-3 3x3
// layer is 9 tiles x SPLITK blocks, one wave of 264 at 29 slices and two, the second 9% full, at 32.
TEST_CASE("kx sweep predicts each config's waves", "[cli][sweep]") {
    const fs::path dir = fs::temp_directory_path() / ("kx_cli_sweep_waves_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path csv = dir / "waves.csv";
    const Outcome o = runKx("sweep conv --arch sm_90 --set direction=bwd_weight,BN=128,WN=64 --vary SPLITK=29,32 --size N=32,C=128,K=128,Hi=28,Wi=28 "
                            "--roofline-device h200_sxm --compile-only -j 2 --csv " + csv.string());
    INFO(o.out << o.err);
    REQUIRE(o.exitCode == 0);
    CHECK_THAT(o.out, Catch::Contains("WAVES"));
    const auto line = [&](const std::string& name) {
        const std::size_t at = o.out.find(name + " ");
        return at == std::string::npos ? std::string() : o.out.substr(at, o.out.find('\n', at) - at);
    };
    CHECK_THAT(line("conv_bwd_weight_f16_nhwgc_128x128x32_w64x64_s4_k29"), Catch::Contains(" 1 99% "));
    CHECK_THAT(line("conv_bwd_weight_f16_nhwgc_128x128x32_w64x64_s4_k32"), Catch::Contains(" 2 55% "));
    std::ifstream in(csv);
    std::string header, first, second;
    std::getline(in, header);
    std::getline(in, first);
    std::getline(in, second);
    CHECK_THAT(header, Catch::Contains(",blocks_per_sm,limiter,waves,busy_share,"));
    CHECK_THAT(first, Catch::Contains(",2,registers,1,0.989,"));
    CHECK_THAT(second, Catch::Contains(",2,registers,2,0.545,"));
    fs::remove_all(dir);
}

TEST_CASE("kx sweep --preselected sweeps a template's named set", "[cli][sweep]") {
    const Outcome o = runKx("sweep gemm_mma --arch sm_90 --preselected small_tiles --compile-only -j 2 --json");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    const auto doc = nlohmann::json::parse(o.out);
    REQUIRE(doc["points"].size() == 3);
    CHECK(doc["points"][0]["config"]["BM"] == "64");
    CHECK(doc["points"][2]["config"]["BM"] == "32");
}

// A sweep predicts each config's roofline position on the GPU it runs on when the database has
// that GPU's datasheet: an H200 (here the stand-in runner's) is not drawn against the H100's
// bandwidth, which the arch alone would choose.
TEST_CASE("a sweep's predicted roofline is the GPU's own when kx knows it", "[cli][sweep][roofline]") {
    const std::string args = "sweep map --compile-only --vary BLOCK=128,256 --json";
    const std::string h200 = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'";
    const Outcome own = runKx(args + " --arch native", h200);
    INFO(own.err);
    REQUIRE(own.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(own.out);
    REQUIRE(doc["points"].size() == 2);
    for (const auto& p : doc["points"]) CHECK(p["predicted"]["roofline_device"] == "NVIDIA H200 SXM 141GB");
    // Named, the arch's device; an unknown GPU of the same arch, the arch's device too.
    const Outcome named = runKx(args + " --arch sm_90");
    REQUIRE(named.exitCode == 0);
    CHECK(nlohmann::json::parse(named.out)["points"][0]["predicted"]["roofline_device"] == "NVIDIA H100 SXM5 80GB");
    const Outcome unknown = runKx(args + " --arch native", "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='Fake GPU'");
    REQUIRE(unknown.exitCode == 0);
    CHECK(nlohmann::json::parse(unknown.out)["points"][0]["predicted"]["roofline_device"] == "NVIDIA H100 SXM5 80GB");
}

// Ctrl-C, and SIGTERM (what `timeout` and batch schedulers send), stop a sweep the same way.
TEST_CASE("Ctrl-C or SIGTERM stops a sweep cleanly and keeps what finished", "[cli][sweep][signal]") {
    const int signal = GENERATE(SIGINT, SIGTERM);
    const std::string tag = signal == SIGINT ? "int" : "term";
    const fs::path session = fresh("stopped-" + tag + ".kxs"), cache = fresh("cold-cache-" + tag);
    const std::string out = (scratchDir() / ("stopped-" + tag + ".out")).string();  // named before fork: the folder is per process
    const std::string csv = (scratchDir() / ("stopped-" + tag + ".csv")).string();
    const std::string kx = std::string(KX_TEST_BINARY_DIR) + "/bin/kx";
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // A cold cache and one compile thread: the sweep takes seconds, long enough to stop.
        ::setenv("KX_CACHE_DIR", cache.c_str(), 1);
        std::freopen(out.c_str(), "w", stdout);
        std::freopen((out + ".err").c_str(), "w", stderr);
        ::execl(kx.c_str(), kx.c_str(), "sweep", "gemm_mma", "--arch", "sm_90", "--vary", "BM=64,128", "--vary", "BN=64,128,256",
                "--vary", "STAGES=2..4", "--compile-only", "-j", "1", "--session", session.c_str(), "--csv", csv.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Stop once the session holds a first point.
    bool started = false;
    for (int i = 0; i < 600 && !started; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        try {
            const SessionStore s = SessionStore::open(session);
            started = !s.sweeps().empty() && !s.sweepPoints(s.sweeps().front().id).empty();
        } catch (const std::exception&) {
        }
    }
    REQUIRE(started);
    ::kill(pid, signal);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    INFO(slurp(out + ".err"));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + signal);
    CHECK_THAT(slurp(out + ".err"), Catch::Contains("stopped: the configs finished so far are kept"));
    // The CSV is written too: a header and every config, the unreached ones marked.
    const std::string table = slurp(csv);
    CHECK(std::count(table.begin(), table.end(), '\n') == 19);
    CHECK_THAT(table, Catch::Contains("not_reached"));

    const SessionStore s = SessionStore::open(session);
    REQUIRE(s.sweeps().size() == 1);
    CHECK(s.sweeps().front().state == "stopped");
    const auto points = s.sweepPoints(s.sweeps().front().id);
    CHECK(points.size() == 18);  // every config: none dropped
    int notReached = 0, finished = 0;
    for (const auto& p : points) {
        if (p.status == "not_reached") {
            ++notReached;
            CHECK(p.reason == "not compiled: the sweep was stopped");
        } else {
            ++finished;
        }
    }
    CHECK(notReached > 0);
    CHECK(finished > 0);
}

TEST_CASE("a Slurm job's shard tasks run, and their sessions merge idempotently", "[cli][sweep][slurm][merge]") {
    const fs::path dir = fresh("slurm");
    const Outcome emitted =
        runKx("sweep map --arch sm_90 --vary BLOCK --vary VEC=1,8 --compile-only -j 2 --size n=1048576 --emit-slurm " + dir.string() + " --shards 2");
    INFO(emitted.err);
    REQUIRE(emitted.exitCode == 0);
    CHECK_THAT(emitted.out, Catch::Contains("10 configs in 2 shards"));
    REQUIRE(fs::exists(dir / "sweep.sbatch"));
    REQUIRE(fs::exists(dir / "shards" / "shard_000.txt"));
    REQUIRE(fs::exists(dir / "shards" / "shard_001.txt"));

    // Each array task as Slurm would start it.
    for (int task = 0; task < 2; ++task) {
        const std::string command = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " KX=" + KX_TEST_BINARY_DIR + "/bin/kx bash " +
                                    (dir / "sweep.sbatch").string() + " >/dev/null 2>" + (dir / "task.err").string();
        INFO(command);
        const int rc = std::system(command.c_str());
        INFO(slurp(dir / "task.err"));
        REQUIRE(rc == 0);
    }
    const fs::path shard0 = dir / "sessions" / "shard_000.kxs", shard1 = dir / "sessions" / "shard_001.kxs";
    REQUIRE(fs::exists(shard0));
    REQUIRE(fs::exists(shard1));

    const fs::path merged = fresh("merged.kxs");
    const Outcome first = runKx("session merge " + merged.string() + " " + shard0.string() + " " + shard1.string());
    INFO(first.err);
    REQUIRE(first.exitCode == 0);
    auto summary = [&] {
        const SessionStore s = SessionStore::open(merged);
        REQUIRE(s.sweeps().size() == 1);  // the shards share the sweep's id
        const auto points = s.sweepPoints(s.sweeps().front().id);
        int pruned = 0;
        for (const auto& p : points) pruned += p.status == "pruned" ? 1 : 0;
        return std::make_tuple(points.size(), pruned, s.variants().size(), s.sweeps().front().state);
    };
    const auto [points, pruned, variants, state] = summary();
    CHECK(points == 10);
    CHECK(pruned == 5);  // VEC=8 of f32 at every block size
    CHECK(variants == 5);
    CHECK(state == "finished");

    const Outcome again = runKx("session merge " + merged.string() + " " + shard1.string() + " " + shard0.string());
    REQUIRE(again.exitCode == 0);
    CHECK_THAT(again.out, Catch::Contains("shard_000.kxs: 0 variants added, 5 already there; 0 runs added"));
    CHECK_THAT(again.out, Catch::Contains("shard_001.kxs: 0 variants added, 0 already there; 0 runs added"));
    CHECK(summary() == std::make_tuple(points, pruned, variants, state));

    const Outcome self = runKx("session merge " + merged.string() + " " + merged.string());
    CHECK(self.exitCode == 2);
    CHECK_THAT(self.err, Catch::Contains("into itself"));
}

TEST_CASE("kx generate in batch writes every config per target with an index", "[cli][generate][sweep]") {
    const fs::path dir = fresh("batch");
    const Outcome o = runKx("generate gemm_mma --output-dir " + dir.string() +
                            " --datatype f16,bf16 --layout rcr,rrr --variants BM=64,128 --set BN=128 --gpu-target sm_75,sm_90");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    const auto index = nlohmann::json::parse(slurp(dir / "index.json"));
    CHECK(index["template"] == "gemm_mma");
    REQUIRE(index["files"].size() == 16);  // 2 dtypes x 2 layouts x 2 BM x 2 targets
    int written = 0, skipped = 0;
    for (const auto& f : index["files"]) {
        if (f["status"] == "written") {
            ++written;
            CHECK(fs::exists(dir / f["source"].get<std::string>()));
            CHECK(f["arch"] == "sm_90");
        } else {
            ++skipped;
            CHECK(f["status"] == "skipped");
            CHECK_THAT(f["reason"].get<std::string>(), Catch::Contains("need sm_80 or later"));  // sm_75 has no mma.sync m16n8k16
        }
    }
    CHECK(skipped == 8);
    CHECK(written == 8);
    CHECK_THAT(o.out, Catch::Contains("configs skipped for breaking constraints"));

    const fs::path cubins = fresh("batch_cubin");
    const Outcome c = runKx("generate map --output-dir " + cubins.string() + " --variants VEC=1,4 --gpu-target sm_90 --cubin -j 2");
    INFO(c.err);
    REQUIRE(c.exitCode == 0);
    const auto cubinIndex = nlohmann::json::parse(slurp(cubins / "index.json"));
    REQUIRE(cubinIndex["files"].size() == 2);
    for (const auto& f : cubinIndex["files"]) {
        REQUIRE(f.contains("cubin"));
        CHECK(slurp(cubins / f["cubin"].get<std::string>()).rfind("\x7f" "ELF", 0) == 0);
        CHECK(f["resources"]["registers"].get<int>() > 0);
    }
    CHECK_THAT(c.err, Catch::Contains("kx: generate sm_90 2/2 configs"));

    // Compiler flags: --flag for every config, --variants varying one.
    const fs::path flagged = fresh("batch_flags");
    const Outcome f = runKx("generate map --output-dir " + flagged.string() + " --flag fast_math --variants maxrregcount=0,32 --gpu-target sm_90");
    INFO(f.err);
    REQUIRE(f.exitCode == 0);
    const auto flaggedIndex = nlohmann::json::parse(slurp(flagged / "index.json"));
    REQUIRE(flaggedIndex["files"].size() == 2);
    CHECK(flaggedIndex["files"][0]["flags"] == "fast_math=true");
    CHECK(flaggedIndex["files"][1]["flags"] == "maxrregcount=32,fast_math=true");
    CHECK(fs::exists(flagged / "sm_90" / "map_add_f32_b256_i2_v4_once_r32_fm.cu"));

    const Outcome noDir = runKx("generate map --gpu-target sm_90");
    CHECK(noDir.exitCode == 2);
    CHECK_THAT(noDir.err, Catch::Contains("give --output-dir DIR"));
    const Outcome noDtype = runKx("generate map --output-dir " + cubins.string() + " --layout rcr --gpu-target sm_90");
    CHECK(noDtype.exitCode == 2);
    CHECK_THAT(noDtype.err, Catch::Contains("--layout: map has no parameter 'layout'"));
}

TEST_CASE("kx sweep --flag and --vary FLAG: every point carries its compiler flags", "[cli][sweep][flags]") {
    const fs::path session = fresh("flags.kxs"), csv = fresh("flags.csv");
    const Outcome o = runKx("sweep map --arch sm_90 --flag fast_math --vary maxrregcount=0,32 --vary VEC=1,2 --compile-only -j 2 --session " +
                            session.string() + " --csv " + csv.string());
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK_THAT(o.out, Catch::Contains("compiled       map_add_f32_b256_i2_v1_once_fm ") &&
                          Catch::Contains("compiled       map_add_f32_b256_i2_v2_once_r32_fm "));

    const SessionStore store = SessionStore::open(session);
    REQUIRE(store.sweeps().size() == 1);
    const auto spec = nlohmann::json::parse(store.sweeps().front().specJson);
    CHECK(spec["flags"] == "fast_math=true");
    CHECK(spec["axes"][0] == nlohmann::json({{"param", "maxrregcount"}, {"values", {"0", "32"}}, {"flag", true}}));
    const auto points = store.sweepPoints(store.sweeps().front().id);
    REQUIRE(points.size() == 4);
    std::multiset<std::string> flags;
    for (const auto& p : points) {
        INFO(p.name);
        CHECK(p.config.flags.fastMath);
        flags.insert(p.config.flags.canonical());
        CHECK(nlohmann::json::parse(p.resultJson)["flags"] == p.config.flags.canonical());
        REQUIRE(p.variantId);
        CHECK(store.variant(*p.variantId)->config == p.config);  // the variant it made has the flags too
    }
    CHECK(flags == std::multiset<std::string>{"fast_math=true", "fast_math=true", "maxrregcount=32,fast_math=true", "maxrregcount=32,fast_math=true"});

    const auto exported = nlohmann::json::parse(runKx("session export " + session.string()).out);
    std::multiset<std::string> exportedFlags;  // points are recorded as they finish
    for (const auto& p : exported["sweeps"][0]["points"]) exportedFlags.insert(p["flags"].get<std::string>());
    CHECK(exportedFlags == flags);

    const std::string table = slurp(csv);
    CHECK_THAT(table.substr(0, table.find('\n')), Catch::StartsWith("op,dtype,BLOCK,ITEMS,VEC,loop,maxrregcount,fast_math,name,"));
    CHECK_THAT(table, Catch::Contains("\nadd,f32,256,2,2,once,32,true,map_add_f32_b256_i2_v2_once_r32_fm,compiled,"));

    const Outcome json = runKx("sweep map --arch sm_90 --vary fast-math --compile-only -j 2 --json");
    REQUIRE(json.exitCode == 0);
    const auto doc = nlohmann::json::parse(json.out);
    REQUIRE(doc["points"].size() == 2);
    CHECK(doc["points"][0]["flags"] == "");
    CHECK(doc["points"][1]["flags"] == "fast_math=true");

    const Outcome bad = runKx("sweep map --arch sm_90 --vary maxrregcount=8 --compile-only");
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.err, Catch::Contains("maxrregcount=8 is not allowed"));
    const Outcome badFlag = runKx("sweep map --arch sm_90 --flag turbo --compile-only");
    CHECK(badFlag.exitCode == 2);
    CHECK_THAT(badFlag.err, Catch::Contains("'turbo' is not a compiler flag"));
}

TEST_CASE("kx sweep --preselected: a set's configs may name compiler flags", "[cli][sweep][flags]") {
    // A copy of map as a user template, with a preselected.xml naming flags.
    const fs::path dir = fresh("preselected_flags");
    fs::create_directories(dir);
    fs::copy(fs::path(KX_TEST_SOURCE_DIR) / "templates" / "map", dir / "mapx", fs::copy_options::recursive);
    std::string manifest = slurp(dir / "mapx" / "manifest.xml");
    manifest.replace(manifest.find("<template id=\"map\""), 18, "<template id=\"mapx\"");
    std::ofstream(dir / "mapx" / "manifest.xml", std::ios::trunc) << manifest;
    std::ofstream(dir / "mapx" / "preselected.xml") << "<preselected template=\"mapx\">\n  <set name=\"capped\" arches=\"any\">\n"
                                                       "    <config VEC=\"2\" flags=\"maxrregcount=32\"/>\n    <config VEC=\"1\" flags=\"fast_math\"/>\n"
                                                       "  </set>\n  <set name=\"tuned\" arches=\"sm_90\">\n"
                                                       "    <config VEC=\"4\" flags=\"maxrregcount=64,ptxas_opt=2\"/>\n  </set>\n</preselected>\n";

    const Outcome o = runKx("sweep mapx --templates " + dir.string() + " --arch sm_90 --preselected capped --flag ptxas_opt=1 --compile-only --json");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    const auto doc = nlohmann::json::parse(o.out);
    REQUIRE(doc["points"].size() == 2);
    CHECK(doc["points"][0]["flags"] == "maxrregcount=32,ptxas_opt=1");
    CHECK(doc["points"][0]["name"] == "map_add_f32_b256_i2_v2_once_r32_O1");
    CHECK(doc["points"][1]["flags"] == "fast_math=true,ptxas_opt=1");

    // A preset of one config brings its flags along.
    const Outcome preset = runKx("compile mapx --templates " + dir.string() + " --arch sm_90 --preset tuned --emit resources");
    INFO(preset.err);
    REQUIRE(preset.exitCode == 0);
    CHECK_THAT(preset.out, Catch::StartsWith("map_add_f32_b256_i2_v4_once_r64_O2 for sm_90"));
}

TEST_CASE("a Slurm job of a sweep over flags: the shard lists carry them and the merged session keeps them", "[cli][sweep][slurm][flags]") {
    const fs::path dir = fresh("slurm_flags");
    const Outcome emitted = runKx("sweep map --arch sm_90 --flag fast_math --vary maxrregcount=0,32 --vary VEC=1,2 --compile-only -j 2 "
                                  "--emit-slurm " + dir.string() + " --shards 2");
    INFO(emitted.err);
    REQUIRE(emitted.exitCode == 0);
    const std::string lists = slurp(dir / "shards" / "shard_000.txt") + slurp(dir / "shards" / "shard_001.txt");
    CHECK(lines(lists) == 4);
    CHECK_THAT(lists, Catch::Contains("VEC=1,dtype=f32,loop=once,op=add|fast_math=true\n") &&
                          Catch::Contains("VEC=2,dtype=f32,loop=once,op=add|maxrregcount=32,fast_math=true\n"));

    for (int task = 0; task < 2; ++task) {
        const std::string command = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " KX=" + KX_TEST_BINARY_DIR + "/bin/kx bash " +
                                    (dir / "sweep.sbatch").string() + " >/dev/null 2>" + (dir / "task.err").string();
        const int rc = std::system(command.c_str());
        INFO(slurp(dir / "task.err"));
        REQUIRE(rc == 0);
    }
    const fs::path merged = fresh("merged_flags.kxs");
    const Outcome merge = runKx("session merge " + merged.string() + " " + (dir / "sessions" / "shard_000.kxs").string() + " " +
                                (dir / "sessions" / "shard_001.kxs").string());
    INFO(merge.err);
    REQUIRE(merge.exitCode == 0);
    const SessionStore s = SessionStore::open(merged);
    REQUIRE(s.sweeps().size() == 1);
    const auto points = s.sweepPoints(s.sweeps().front().id);
    REQUIRE(points.size() == 4);  // the configs differing only by their flags stay apart
    std::set<std::string> names;
    for (const auto& p : points) {
        CHECK(p.config.flags.fastMath);
        CHECK(p.status == "compiled");
        names.insert(p.name);
    }
    CHECK(names == std::set<std::string>{"map_add_f32_b256_i2_v1_once_fm", "map_add_f32_b256_i2_v2_once_fm",
                                         "map_add_f32_b256_i2_v1_once_r32_fm", "map_add_f32_b256_i2_v2_once_r32_fm"});
}
