// The shipped templates against the shipped arches: defaults valid, golden sources, and every
// default config compiles for sm_80, sm_90 and sm_120 with a parsable ptxas report.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "sweep/preselected.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
const TemplateLibrary& library() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}
// A config that must be valid, compiled for `arch` (the failed constraints or the log say why not).
CompileResult compileValid(const Template& t, const Config& config, const Arch& arch, std::string& name) {
    const PreparedVariant v = prepareVariant(t, config, arch);
    for (const Violation& violation : v.violations) FAIL(violation.message);
    static Compiler compiler(cacheRoot() / "nvrtc");
    CompileResult r = compiler.compile(v.request);
    INFO(r.log);
    REQUIRE(r.ok);
    name = v.name;
    return r;
}
std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

TEST_CASE("the shipped templates load without errors", "[templates][shipped]") {
    for (const LoadError& e : library().errors()) FAIL(e.toString());
    for (const char* id : {"gemm", "reduce", "map", "scan", "filter", "histogram", "transpose", "stencil", "radix_sort", "group_by", "join"})
        CHECK(library().find(id));
    // The pickers' grouping: every template once, categories sorted, titles sorted within each.
    std::size_t grouped = 0;
    std::string previousCategory;
    for (const auto& category : library().byCategory()) {
        CHECK(category.name > previousCategory);
        previousCategory = category.name;
        for (std::size_t i = 0; i < category.templates.size(); ++i) {
            CHECK(category.templates[i]->manifest().category == category.name);
            if (i > 0) CHECK(category.templates[i - 1]->manifest().title < category.templates[i]->manifest().title);
        }
        grouped += category.templates.size();
    }
    CHECK(grouped == library().templates().size());
}

TEST_CASE("generated sources match the golden files", "[templates][golden]") {
    // Every template's default config for sm_90, plus a few configs that take other branches.
    // Regenerate with KX_UPDATE_GOLDEN=1 after an intended change, and review the diff.
    const bool update = std::getenv("KX_UPDATE_GOLDEN") != nullptr;
    struct Case { std::string templ, arch; std::map<std::string, std::string> values; std::string file; };
    std::vector<Case> cases = {
        {"gemm", "sm_80", {{"dtype", "f32"}, {"layout", "rrr"}}, "gemm_sm_80_f32_rrr.cu"},
        {"reduce", "sm_120", {{"op", "max"}, {"dtype", "bf16"}}, "reduce_sm_120_max_bf16.cu"},
    };
    for (const auto& t : library().templates())
        if (t->hasLanguage("cuda")) cases.push_back({t->id(), "sm_90", {}, t->id() + "_sm_90_default.cu"});  // HIP-only: test_hip_templates
    CHECK(cases.size() >= 13);
    for (const Case& c : cases) {
        auto t = library().find(c.templ);
        REQUIRE(t);
        const Arch* arch = arches().findArch(c.arch);
        REQUIRE(arch);
        const std::string source = t->render(t->withValues(t->defaultConfig(), c.values), *arch);
        const auto golden = sourceDir() / "tests/golden" / c.file;
        if (update) {
            std::ofstream(golden, std::ios::binary) << source;
        }
        INFO("golden file " << golden.string() << " (KX_UPDATE_GOLDEN=1 regenerates)");
        CHECK(source == readFile(golden));
    }
}

TEST_CASE("every default config is valid and compiles for sm_80, sm_90 and sm_120", "[templates][compile][shipped]") {
    Compiler compiler(cacheRoot() / "nvrtc");
    const Arch* sm90 = arches().findArch("sm_90");
    const Arch* sm90a = arches().findArch("sm_90a");
    REQUIRE((sm90 && sm90a));
    for (const auto& t : library().templates()) {
        if (!t->hasLanguage("cuda")) continue;  // AMD only (gemm_mfma): test_hip_templates compiles it
        // A template for Hopper's arch-specific target alone (wgmma) is built for sm_90a, which
        // is what a run on an sm_90 device uses; every other template builds for all three.
        const bool hopperOnly = !t->validate(t->defaultConfig(), *sm90).empty() && t->validate(t->defaultConfig(), *sm90a).empty();
        int compiled = 0;
        for (const char* archName : {"sm_80", "sm_90", "sm_120"}) {
            const Arch* arch = archForDevice(arches(), archName, *t, t->defaultConfig());
            REQUIRE(arch);
            INFO(t->id() << " for " << arch->name);
            if (hopperOnly && arch != sm90a) continue;
            const PreparedVariant v = prepareVariant(*t, t->defaultConfig(), *arch);
            for (const Violation& violation : v.violations) FAIL(violation.message);
            ++compiled;
            const CompileResult r = compiler.compile(v.request);
            INFO(r.log);
            REQUIRE(r.ok);
            REQUIRE_FALSE(r.kernels.empty());
            // ptxas compiled the whole program, as nvcc does: nothing it reports as a potential
            // performance loss (setmaxnreg ignored, wgmma serialised) is left in a default, and
            // the compiler warns about nothing (the Log tab would say "1 warning").
            CHECK(r.log.find("Potential Performance Loss") == std::string::npos);
            CHECK(r.log.find(": warning") == std::string::npos);
            // Every kernel the config launches is in the PTX and the ptxas report, within the
            // arch's registers and without spills.
            int launched = 0;
            for (const LaunchStep& step : t->launches(t->defaultConfig(), *arch, t->defaultSizes())) {
                if (step.repeat == 0) continue;
                ++launched;
                INFO(step.kernel);
                CHECK(r.ptx.find(".entry " + step.kernel) != std::string::npos);
                const auto k = std::find_if(r.kernels.begin(), r.kernels.end(), [&](const KernelResources& kr) { return kr.function == step.kernel; });
                REQUIRE(k != r.kernels.end());
                CHECK(k->registers > 0);
                CHECK(k->registers <= arch->nv.maxRegsPerThread);
                CHECK_FALSE(k->spills());
            }
            CHECK(launched > 0);
            // The occupancy views describe a kernel that the config launches.
            const LaunchGeometry primary = t->launch(t->defaultConfig(), *arch, t->defaultSizes());
            CHECK(primary.kernel.rfind(v.name, 0) == 0);
        }
        INFO(t->id());
        CHECK(compiled > 0);
    }
}

// The presets users are pointed to (`kx run --preset NAME`, the app's Start from) compile for the
// arches the defaults are compiled for, sm_90a where a Hopper template needs it, as cleanly as the
// defaults: every kernel they launch within the arch's registers and without spills, unless the
// preset's help says "ptxas spills" (attention's tuned preset was measured faster with 4 bytes).
TEST_CASE("every preset for sm_80, sm_90 and sm_120 compiles without spills", "[templates][compile][shipped]") {
    Compiler compiler(cacheRoot() / "nvrtc");
    int compiled = 0;
    auto check = [&](const Template& t, const PreselectedSet& set, const char* device) {
        const Config config = preselectedConfigs(set, t.defaultConfig()).front();
        const Arch* arch = archForDevice(arches(), device, t, config);
        REQUIRE(arch);
        INFO(t.id() << " --preset " << set.name << " for " << arch->name);
        const bool spillsSaid = set.help.find("ptxas spills") != std::string::npos;
        const PreparedVariant v = prepareVariant(t, config, *arch);
        for (const Violation& violation : v.violations) FAIL(violation.message);
        const CompileResult r = compiler.compile(v.request);
        INFO(r.log);
        REQUIRE(r.ok);
        CHECK(r.log.find("Potential Performance Loss") == std::string::npos);
        CHECK(r.log.find(": warning") == std::string::npos);
        for (const LaunchStep& step : t.launches(config, *arch, t.defaultSizes())) {
            if (step.repeat == 0) continue;
            INFO(step.kernel);
            const auto k = std::find_if(r.kernels.begin(), r.kernels.end(), [&](const KernelResources& kr) { return kr.function == step.kernel; });
            REQUIRE(k != r.kernels.end());
            CHECK(k->registers <= arch->nv.maxRegsPerThread);
            if (!spillsSaid) CHECK_FALSE(k->spills());
        }
        ++compiled;
    };
    for (const auto& t : library().templates()) {
        if (!t->hasLanguage("cuda")) continue;
        for (const PreselectedSet& set : loadPreselected(*t))
            for (const char* device : {"sm_80", "sm_90", "sm_120"})
                if (set.configs.size() == 1 && set.coversArch(device)) check(*t, set, device);
    }
    CHECK(compiled > 30);
}

TEST_CASE("the primary launch is the marked one, else the first that runs", "[templates][shipped]") {
    const Arch* arch = arches().findArch("sm_90");
    REQUIRE(arch);
    auto kernelOf = [&](const std::string& id, const std::map<std::string, std::string>& values) {
        auto t = library().find(id);
        REQUIRE(t);
        const Config c = t->withValues(t->defaultConfig(), values);
        return t->launch(c, *arch, t->defaultSizes()).kernel.substr(t->configName(c).size());
    };
    CHECK(kernelOf("group_by", {}) == "_aggregate");  // marked primary; "clear" comes first
    CHECK(kernelOf("join", {}) == "_probe");
    CHECK(kernelOf("gemm", {}).empty());               // one unnamed launch
    CHECK(kernelOf("scan", {{"algo", "lookback"}}) == "_lookback");
    CHECK(kernelOf("scan", {{"algo", "rts"}}) == "_upsweep");  // the look-back kernel does not run
}

// gemm_mma's preshuffled B: the preshuffle kernel is a prepare launch (once per input set,
// untimed) that runs only for that format, the main kernel stays the described one, and the
// tiles its preset uses compile without spills for Ampere and Hopper.
TEST_CASE("a prepare launch runs only when its config asks, and is never the described kernel", "[templates][shipped]") {
    const auto t = library().find("gemm_mma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90");
    REQUIRE(arch);
    const Config stored = t->defaultConfig();
    const Config preshuffled =
        t->withValues(stored, {{"b_format", "preshuffled"}, {"BM", "128"}, {"BN", "128"}, {"WM", "64"}, {"WN", "32"}, {"STAGES", "4"}});
    const SizeMap sizes = {{"M", 333}, {"N", 257}, {"K", 1000}};
    for (const Config* c : {&stored, &preshuffled}) {
        const bool shuffled = c == &preshuffled;
        const std::vector<LaunchStep> steps = t->launches(*c, *arch, sizes);
        REQUIRE(steps.size() == 3);
        CHECK(steps[0].kernel == t->configName(*c) + "_preshuffle");
        CHECK(steps[0].prepare);
        CHECK(steps[0].repeat == (shuffled ? 1 : 0));
        CHECK_FALSE(steps[1].prepare);
        CHECK(t->launch(*c, *arch, sizes).kernel == t->configName(*c));
    }
    CHECK(t->configName(preshuffled).find("_preshuffled") != std::string::npos);
    CHECK(t->configName(stored).find("preshuffled") == std::string::npos);
    // B keeps no shared memory: 4 stages of a 128 x 32 f16 A tile.
    CHECK(t->launch(preshuffled, *arch, sizes).dynamicSmemBytes == 4 * 128 * 32 * 2);
    for (const char* archName : {"sm_80", "sm_90"}) {
        const Arch* a = arches().findArch(archName);
        REQUIRE(a);
        std::string name;
        const CompileResult r = compileValid(*t, preshuffled, *a, name);
        for (const std::string suffix : {"", "_preshuffle"}) {
            const auto k = std::find_if(r.kernels.begin(), r.kernels.end(), [&](const KernelResources& kr) { return kr.function == name + suffix; });
            REQUIRE(k != r.kernels.end());
            CHECK_FALSE(k->spills());
        }
    }
}

// attention_wgmma's head dimension 256 (m64n256k16 output products from registers): the preset's
// config fits shared memory and compiles without spills; the default's 128 keys and three stages
// are refused with the shared memory they would need.
TEST_CASE("attention_wgmma with head dimension 256 compiles in its preset's shape", "[templates][shipped]") {
    const auto t = library().find("attention_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const Config d256 = t->withValues(t->defaultConfig(), {{"HEAD_DIM", "256"}, {"BLOCK_N", "64"}, {"STAGES", "2"}, {"OVERLAP", "false"}});
    std::string name;
    const CompileResult r = compileValid(*t, d256, *arch, name);
    CHECK(r.ptx.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") != std::string::npos);
    for (const KernelResources& k : r.kernels) CHECK_FALSE(k.spills());
    const auto tooBig = t->validate(t->withValues(t->defaultConfig(), {{"HEAD_DIM", "256"}}), *arch);
    REQUIRE_FALSE(tooBig.empty());
    CHECK_THAT(tooBig.front().message, Catch::Contains("bytes of shared memory"));
}

// radix_sort's one-sweep runs a histogram and one launch per pass, with look-back words for every
// tile; its 30-bit look-back counts cannot hold 2^30 keys or more, and there the sequence is the
// classic one's (three launches a pass) with the classic count array, whatever the config says.
TEST_CASE("radix_sort's launch sequence: one-sweep below 2^30 keys, the classic steps from there", "[templates][shipped]") {
    const auto t = library().find("radix_sort");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90");
    REQUIRE(arch);
    const Config config = t->defaultConfig();
    REQUIRE(config.at("algorithm") == "onesweep");
    const auto repeats = [&](long long n) {
        std::map<std::string, long long> r;
        for (const LaunchStep& s : t->launches(config, *arch, {{"n", n}})) r[s.kernel.substr(s.kernel.rfind('_') + 1)] = s.repeat;
        return r;
    };
    const auto elements = [&](long long n, const std::string& arg) {
        for (const ResolvedArg& a : t->resolveArgs(config, *arch, {{"n", n}}))
            if (a.name == arg) return a.count;
        FAIL("no argument " << arg);
        return 0LL;
    };
    const long long small = (1LL << 30) - 1, large = 1LL << 30;
    CHECK(repeats(small) == std::map<std::string, long long>{{"step", 0}, {"histogram", 1}, {"onesweep", 4}});
    CHECK(repeats(large) == std::map<std::string, long long>{{"step", 12}, {"histogram", 0}, {"onesweep", 0}});
    const long long tile = 256 * 16;
    CHECK(elements(small, "lookback") == 4 * ((small + tile - 1) / tile) * 256);
    CHECK(elements(large, "lookback") == 1);
    CHECK(elements(small, "counts") == 1);
    CHECK(elements(large, "counts") == 256 * 4096);
    CHECK(t->launch(config, *arch, {{"n", small}}).kernel == t->configName(config) + "_onesweep");
    CHECK(t->launch(config, *arch, {{"n", large}}).kernel == t->configName(config) + "_step");
    const Config classic = t->withValues(config, {{"algorithm", "classic"}});
    CHECK(t->launches(classic, *arch, {{"n", small}})[0].repeat == 12);
}

// A persistent launch is the manifest's to ask for, per config: the runner caps the grid.
// smem_vec4: a thread per four points along x, shared-memory rows widened to 16-byte chunks, and
// for order 2 a launch bound that keeps both paths (16-byte and single-point copies) within 64
// registers, which halves the blocks per SM when it is missing.
TEST_CASE("stencil's smem_vec4: a thread per four points, 16-byte rows, order 2 within 64 registers", "[templates][compile][shipped]") {
    const auto t = library().find("stencil");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90");
    REQUIRE(arch);
    const Config config = t->withValues(t->defaultConfig(), {{"order", "2"}, {"strategy", "smem_vec4"}, {"TX", "256"}, {"TY", "8"}, {"ZCHUNK", "256"}, {"PREFETCH", "1"}});
    const LaunchGeometry g = t->launch(config, *arch, {{"nx", 512}, {"ny", 100}, {"nz", 512}});
    CHECK(g.block[0] == 64);
    CHECK(g.block[1] == 8);
    CHECK(g.grid[0] == 2);
    CHECK(g.grid[1] == 13);
    CHECK(g.grid[2] == 2);

    Compiler compiler(cacheRoot() / "nvrtc");
    for (const char* order : {"2", "8"}) {
        const Config c = t->withValues(config, {{"order", order}, {"TX", "64"}});
        const PreparedVariant v = prepareVariant(*t, c, *arch);
        INFO("order " << order);
        REQUIRE(v.violations.empty());
        const CompileResult r = compiler.compile(v.request);
        INFO(r.log);
        REQUIRE(r.ok);
        REQUIRE(r.kernels.size() == 1);
        // STAGES (RADIUS + PREFETCH + 2) buffers of (TX + 2 * 4) x (TY + 2 * RADIUS) floats, in
        // dynamic shared memory (so that tall tiles may pass 48 KB): none of it static.
        const int radius = order == std::string("2") ? 1 : 4;
        const long long ring = (radius + 1 + 2) * (64 + 8) * (8 + 2 * radius) * 4;
        CHECK(r.kernels[0].sharedBytes == 0);
        CHECK(t->launch(c, *arch, {{"nx", 512}, {"ny", 100}, {"nz", 512}}).dynamicSmemBytes == ring);
        if (radius == 1) {
            CHECK(r.kernels[0].registers <= 64);
            CHECK_FALSE(r.kernels[0].spills());
        } else {
            CHECK(r.kernels[0].registers > 64);  // order 8 is left unbounded: at 64 it spills kilobytes
        }
    }
    // No cp.async before sm_80: refused, naming the strategy.
    const PreparedVariant turing = prepareVariant(*t, config, *arches().findArch("sm_75"));
    REQUIRE(turing.violations.size() == 1);
    CHECK(turing.violations[0].message.find("smem_vec4 copies with cp.async") != std::string::npos);
}

TEST_CASE("gemm_wgmma's launch is persistent exactly when PERSISTENT is 1", "[templates][shipped]") {
    const auto t = library().find("gemm_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const SizeMap sizes = t->defaultSizes();
    const Config perTile = t->withValues(t->defaultConfig(), {{"PERSISTENT", "0"}});
    const std::vector<LaunchStep> plain = t->launches(perTile, *arch, sizes);
    REQUIRE(plain.size() == 1);
    CHECK_FALSE(plain[0].persistent);
    CHECK(plain[0].geometry.cluster[0] == 1);
    const Config persistent = t->withValues(t->defaultConfig(), {{"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}});
    const std::vector<LaunchStep> steps = t->launches(persistent, *arch, sizes);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].persistent);
    // The grid still counts every tile (64-row tiles in pingpong), in whole clusters of two;
    // the runner cuts it to a wave.
    CHECK(steps[0].geometry.grid[0] == (4096 / 64) * (4096 / 256));
    CHECK(steps[0].geometry.cluster[0] == 2);
    CHECK(t->configName(persistent) == "gemm_wgmma_f16_rcr_n256_c2x1_s4_f1_g8_pingpong_x2");
    CHECK(t->configName(perTile) == "gemm_wgmma_f16_rcr_n256_c2x1_s4_f1_g8_p0");
    CHECK(t->configName(t->withValues(perTile, {{"STORE", "direct"}})) == "gemm_wgmma_f16_rcr_n256_c2x1_s4_f1_g8_p0_direct");
    // An odd number of tile rows still launches whole clusters: the last one's second block has
    // no rows of its own, but takes its part in loading B.
    const std::vector<LaunchStep> odd = t->launches(persistent, *arch, {{"M", 3 * 64}, {"N", 256}, {"K", 64}});
    CHECK(odd[0].geometry.grid[0] == 4);
    // Pingpong without persistent blocks is refused with the reason.
    const PreparedVariant refused =
        prepareVariant(*t, t->withValues(t->defaultConfig(), {{"SCHEDULE", "pingpong"}, {"PERSISTENT", "0"}}), *arch);
    REQUIRE(refused.violations.size() == 1);
    CHECK(refused.violations[0].message.find("PERSISTENT=1") != std::string::npos);
}

// Two blocks per SM give a thread 80 registers at launch (128 with one consumer), and ptxas holds
// a whole wgmma's accumulators within that: every tile shape the constraints let through
// compiles without spills, and the one they refuse names the reason.
TEST_CASE("conv_wgmma with two blocks per SM: every tile shape it accepts compiles, the rest are refused", "[templates][compile][shipped]") {
    const auto t = library().find("conv_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    Compiler compiler(cacheRoot() / "nvrtc");
    int accepted = 0;
    for (const char* bn : {"32", "64", "128", "256"})
        for (const char* mt : {"1", "2"})
            for (const char* consumers : {"1", "2"}) {
                const Config c = t->withValues(t->defaultConfig(), {{"BN", bn}, {"MT", mt}, {"CONSUMERS", consumers}, {"STAGES", "2"}, {"BLOCKS_PER_SM", "2"}});
                const PreparedVariant v = prepareVariant(*t, c, *arch);
                INFO(v.name);
                if (!v.violations.empty()) continue;
                ++accepted;
                const CompileResult r = compiler.compile(v.request);
                INFO(r.log);
                REQUIRE(r.ok);
                for (const auto& k : r.kernels) CHECK_FALSE(k.spills());
            }
    CHECK(accepted >= 5);
    const Config wide = t->withValues(t->defaultConfig(), {{"BN", "256"}, {"CONSUMERS", "1"}, {"STAGES", "2"}, {"BLOCKS_PER_SM", "2"}});
    const PreparedVariant refused = prepareVariant(*t, wide, *arch);
    REQUIRE(refused.violations.size() == 1);
    CHECK(refused.violations[0].message.find("One wgmma 256 wide") != std::string::npos);
}
