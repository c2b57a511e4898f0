// kx tutorial list | show | check, as a user runs them. The sessions are written through the
// engine: the variants really compiled by NVRTC here, the runs stand for a GPU's (a real run needs
// one: tests/gpu).
#include "kx_process.hpp"

#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "store/session_record.hpp"
#include "store/session_store.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace kx::test;
using namespace kx::engine;

namespace {

fs::path freshSession(const std::string& stem) {
    const fs::path p = scratchDir() / (stem + ".kxs");
    fs::remove(p);
    return p;
}

// Keeps the map config `values` (over the defaults) compiled for sm_90, as the app's Keep does;
// with `copyPct` also a passing run at that percentage of a same-run device copy.
void keepMap(SessionStore& store, const std::map<std::string, std::string>& values, std::optional<double> copyPct) {
    static const ArchDatabase arches = ArchDatabase::loadFromDataRoot(KX_TEST_SOURCE_DIR);
    static const TemplateLibrary lib = TemplateLibrary::load(fs::path(KX_TEST_SOURCE_DIR) / "templates");
    static Compiler compiler(cacheRoot() / "nvrtc");
    const auto tmpl = lib.find("map");
    REQUIRE(tmpl);
    const Arch& arch = *arches.findArch("sm_90");
    const Config config = tmpl->withValues(tmpl->defaultConfig(), values);
    const PreparedVariant prepared = prepareVariant(*tmpl, config, arch);
    const CompileResult compiled = compiler.compile(prepared.request);
    REQUIRE(compiled.ok);
    const auto id = recordVariant(store, prepared.name, "sm_90", config, artifactsOf(prepared.source, compiled));
    if (!copyPct) return;
    RunReport r;
    r.ok = true;
    r.variant = prepared.name;
    r.deviceName = "NVIDIA H100 80GB HBM3";
    r.medianMs = 0.3;
    r.gbps = 2700;
    r.correctness.passed = true;
    BaselineReport copy;
    copy.id = "copy";
    copy.name = "device copy";
    copy.medianMs = 0.3 * *copyPct / 100;
    copy.speedup = *copyPct / 100;
    r.baselines.push_back(copy);
    store.addRun(id, r);
}

}  // namespace

TEST_CASE("kx tutorial list names every shipped tutorial in learning order", "[cli][tutorial]") {
    const Outcome o = runKx("tutorial list");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(o.out.find(" 1  first_kernel") != std::string::npos);
    CHECK(o.out.find("Your first kernel: vector add") != std::string::npos);
}

TEST_CASE("kx tutorial show prints the steps, actions, checkpoints and the recorded run", "[cli][tutorial]") {
    const Outcome o = runKx("tutorial show first_kernel");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(o.out.find("Step 1 of 3: Grid, block, thread (launch)") != std::string::npos);
    CHECK(o.out.find("[Show me one float per load] select template map; set VEC=1; open ptx") != std::string::npos);
    CHECK(o.out.find("check: at least 90% of the copy bandwidth (needs a GPU run)") != std::string::npos);
    CHECK(o.out.find("recorded on NVIDIA H100 80GB HBM3 (2026-11-25)") != std::string::npos);

    const Outcome unknown = runKx("tutorial show nope");
    CHECK(unknown.exitCode == 2);
    CHECK(unknown.err.find("unknown tutorial 'nope' (tutorials: first_kernel") != std::string::npos);
}

TEST_CASE("kx tutorial show prints a step's compiler flags", "[cli][tutorial]") {
    const Outcome o = runKx("tutorial show stencil");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK(o.out.find("; flags maxrregcount=128; open occupancy") != std::string::npos);
}

TEST_CASE("kx tutorial check: an empty session fails every step with the reason", "[cli][tutorial]") {
    const fs::path file = freshSession("tutorial-empty");
    SessionStore::create(file);
    const Outcome o = runKx("tutorial check first_kernel --session " + file.string());
    INFO(o.out << o.err);
    CHECK(o.exitCode == 1);
    CHECK(o.out.find("FAIL  template is map: the session has no variant of map") != std::string::npos);
    CHECK(o.out.find("0 of 9 checkpoints pass") != std::string::npos);
}

TEST_CASE("kx tutorial check: compiled variants pass, a missing run is named, runs decide the rest", "[cli][tutorial]") {
    const fs::path file = freshSession("tutorial-progress");
    {
        SessionStore store = SessionStore::create(file);
        keepMap(store, {}, std::nullopt);
        keepMap(store, {{"VEC", "1"}}, std::nullopt);
    }
    Outcome o = runKx("tutorial check first_kernel --session " + file.string());
    INFO(o.out << o.err);
    CHECK(o.exitCode == 1);
    CHECK(o.out.find("(variant map_add_f32_b256_i2_v1_once)") != std::string::npos);
    CHECK(o.out.find("PASS  no 16-byte loads yet: the PTX has no ld.global.nc.v4 instruction") != std::string::npos);
    CHECK(o.out.find("PASS  16-byte vector loads in the PTX: the PTX has ld.global.nc.v4 instructions") != std::string::npos);
    // No GPU run: said so, with the recorded H100 run quoted as recorded.
    CHECK(o.out.find("RUN   a run passes its check: needs a run on a GPU: this config has not run here") != std::string::npos);
    CHECK(o.out.find("Recorded on NVIDIA H100 80GB HBM3 (2026-11-25), not run here: 101% of copy bandwidth") != std::string::npos);
    CHECK(o.out.find("7 of 9 checkpoints pass") != std::string::npos);

    // A run below the bar fails with its figure; one above it passes everything.
    {
        SessionStore store = SessionStore::open(file);
        keepMap(store, {}, 80.0);
    }
    o = runKx("tutorial check first_kernel --session " + file.string());
    CHECK(o.exitCode == 1);
    CHECK(o.out.find("FAIL  at least 90% of the copy bandwidth: 80.0% of the copy bandwidth (at least 90)") != std::string::npos);
    {
        SessionStore store = SessionStore::open(file);
        keepMap(store, {}, 97.0);
    }
    o = runKx("tutorial check first_kernel --session " + file.string());
    INFO(o.out);
    CHECK(o.exitCode == 0);
    CHECK(o.out.find("9 of 9 checkpoints pass") != std::string::npos);
}

TEST_CASE("kx tutorial check refuses a missing session and an unknown tutorial", "[cli][tutorial]") {
    Outcome o = runKx("tutorial check first_kernel --session " + (scratchDir() / "absent.kxs").string());
    CHECK(o.exitCode == 2);
    CHECK(o.err.find("absent.kxs") != std::string::npos);
    o = runKx("tutorial check nope --session x.kxs");
    CHECK(o.exitCode == 2);
    CHECK(o.err.find("unknown tutorial 'nope'") != std::string::npos);
    o = runKx("tutorial check first_kernel");
    CHECK(o.exitCode == 2);
    CHECK(o.err.find("--session") != std::string::npos);
}
