// [gpu] Every template in templates/, the same way: its default config at each of its test sizes
// (1, primes, sizes that are no multiple of any tile), then every allowed value of each
// parameter (one at a time, from the default) at one awkward size. Each run is checked against
// the template's reference and must time its baselines. Run with: ctest --preset default -L gpu
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "run/variant_run.hpp"
#include "sweep/preselected.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace kx::engine;

namespace {

struct Fixture {
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(dataRoot());
    TemplateLibrary templates = TemplateLibrary::load(dataRoot() / "templates");
    RunnerClient runner;
    Compiler compiler{cacheRoot() / "nvrtc"};
    const Arch* arch = nullptr;

    Fixture() {
        const nlohmann::json devices = listDevices(runner);
        INFO(devices.dump());
        REQUIRE(devices.value("ok", false));
        REQUIRE_FALSE(devices["devices"].empty());
        arch = arches.findArch(devices["devices"][0]["arch"].get<std::string>());
        REQUIRE(arch);
    }
};

Fixture& fixture() {
    static Fixture f;
    return f;
}

RunOptions quick() {
    RunOptions o;
    o.reps = 3;
    o.warmup = 1;
    o.timeoutSeconds = 60;
    return o;
}

// Runs one config; returns false (with the reason logged) when it is not valid for the arch.
// Every baseline must run too.
bool runChecked(const Template& t, const Config& config, const SizeMap& sizes, const RunOptions& options = quick()) {
    Fixture& f = fixture();
    // As `kx run --arch native` does: the device's arch, or its arch-specific target (sm_90a).
    const Arch* arch = archForDevice(f.arches, f.arch->name, t, config);
    const PreparedVariant v = prepareVariant(t, config, *arch);
    if (!v.violations.empty()) return false;
    // A problem the template refuses in words (a <requirement>) is not this config's to run.
    if (const std::string refusal = t.problemRefusal(config, *arch, sizes); !refusal.empty()) {
        INFO(refusal);
        return false;
    }
    const CompileResult compiled = f.compiler.compile(v.request);
    INFO(v.name << "\n" << compiled.log);
    REQUIRE(compiled.ok);
    const RunReport r = runVariant(f.runner, t, config, *arch, sizes, compiled, options);
    std::string sizeText;
    for (const auto& [k, value] : sizes) sizeText += k + "=" + std::to_string(value) + " ";
    INFO(v.name << " at " << sizeText << "| " << r.error << " | " << r.correctness.method << " | first bad: " << r.correctness.firstBadText
                << " | max rel " << r.correctness.maxRelError << " tol " << r.correctness.tolerance);
    REQUIRE(r.ok);
    CHECK(r.correctness.hasReference);
    CHECK(r.correctness.passed);
    CHECK(r.correctness.checked > 0);
    CHECK(r.medianMs > 0);
    for (const BaselineReport& b : r.baselines) {
        INFO(b.name << ": " << b.error);
        // A library that has no kernel for the shape (cuBLASLt's fp8 GEMMs want rows of multiples
        // of 16 bytes) is its limit, not a failure of the run: said, and the kernel still checked.
        const bool libraryDeclined = b.error.find("offers no algorithm") != std::string::npos;
        if (libraryDeclined) WARN(v.name << ": " << b.error);
        if (!libraryDeclined) CHECK(b.ok());
    }
    return true;
}

// Runs each config (the default with the given values) at each size; returns how many were valid.
int runEvery(const Template& t, const std::vector<std::vector<std::pair<std::string, std::string>>>& configs,
             const std::vector<SizeMap>& sizes) {
    int ran = 0;
    for (const auto& values : configs) {
        const Config config = t.withValues(t.defaultConfig(), {values.begin(), values.end()});
        for (const SizeMap& s : sizes)
            if (runChecked(t, config, s)) ++ran;
    }
    return ran;
}

// Whether this GPU has the arch-specific target the template's default config needs (sm_90a
// for the Hopper templates); says so when it has not.
bool runsOnThisGpu(const Template& t) {
    if (archForDevice(fixture().arches, fixture().arch->name, t, t.defaultConfig())->expressionVariables().at("arch_specific")) return true;
    WARN(t.id() << " needs an arch-specific target (sm_90a); this GPU is " << fixture().arch->name);
    return false;
}

// The template's default problem with some sizes changed.
SizeMap defaultSizesWith(const Template& t, const SizeMap& changes) {
    SizeMap s = t.defaultSizes();
    for (const auto& [key, value] : changes) s[key] = value;
    return s;
}

// conv_wgmma's awkward sizes and three layers whose few input channels (rows under the TMA's 16
// bytes) need the width fold or the transposed filter: ResNet-50's first layer in small (3
// channels, 7 x 7 at stride 2, padding 3), 5 channels in 2 groups in 3-D with a dilated filter at
// width stride 3, and one channel at stride 1 with a filter wider than the image.
std::vector<SizeMap> sizesWithFewChannels(const Template& t) {
    std::vector<SizeMap> sizes = t.testSizes();
    for (const SizeMap& changes : std::vector<SizeMap>{
             {{"N", 2}, {"C", 3}, {"K", 24}, {"Hi", 13}, {"Wi", 17}, {"Y", 7}, {"X", 7}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 3}, {"pad_w", 3}},
             {{"N", 1}, {"G", 2}, {"C", 5}, {"K", 16}, {"Di", 4}, {"Hi", 5}, {"Wi", 9}, {"Z", 2}, {"Y", 3}, {"X", 3}, {"stride_w", 3},
              {"pad_d", 1}, {"pad_h", 1}, {"pad_w", 2}, {"dil_w", 2}},
             {{"N", 3}, {"C", 1}, {"K", 72}, {"Hi", 6}, {"Wi", 4}, {"Y", 3}, {"X", 5}, {"pad_h", 1}, {"pad_w", 3}}})
        sizes.push_back(defaultSizesWith(t, changes));
    return sizes;
}

// KX_GPU_TEMPLATES=scan,filter limits the walk (for a quick look at one template).
bool selected(const std::string& id) {
    const char* only = std::getenv("KX_GPU_TEMPLATES");
    if (!only || !*only) return true;
    const std::string list = std::string(",") + only + ",";
    return list.find("," + id + ",") != std::string::npos;
}

}  // namespace

TEST_CASE("every template's default config is correct at awkward sizes", "[gpu][templates]") {
    for (const auto& t : fixture().templates.templates()) {
        if (!selected(t->id()) || !t->hasLanguage("cuda")) continue;  // AMD-only templates cannot run here
        for (const SizeMap& sizes : t->testSizes()) {
            INFO(t->id());
            CHECK(runChecked(*t, t->defaultConfig(), sizes));
        }
    }
}

TEST_CASE("every parameter value of every template is correct", "[gpu][templates]") {
    for (const auto& t : fixture().templates.templates()) {
        if (!selected(t->id()) || !t->hasLanguage("cuda")) continue;  // AMD-only templates cannot run here
        const std::vector<SizeMap> tests = t->testSizes();
        const SizeMap& sizes = tests[tests.size() / 2];
        int ran = 0, skipped = 0;
        for (const ParamSpec& p : t->manifest().params) {
            std::vector<std::string> values;
            if (p.type == ParamType::Enum)
                for (const EnumChoice& c : p.choices) values.push_back(c.name);
            else if (p.type == ParamType::Bool)
                values = {"false", "true"};
            else if (!p.allowed.empty())
                for (long long v : p.allowed) values.push_back(std::to_string(v));
            for (const std::string& value : values) {
                if (value == p.defaultValue) continue;
                const Config config = t->withValues(t->defaultConfig(), {{p.name, value}});
                if (runChecked(*t, config, sizes)) ++ran;
                else ++skipped;
            }
        }
        WARN(t->id() << ": " << ran << " configs run, " << skipped << " not valid on " << fixture().arch->name);
    }
}

// Past 2^31 bytes: each template whose sizes name a large value (<size large="...">, the
// data-parallel set) runs its default config at that problem, where a buffer's byte offsets
// outgrow 32 bits, and every element is checked. Inputs of gigabytes take the host seconds to
// make and check, hence the longer limit.
TEST_CASE("every template with a large problem is correct past 2^31 bytes", "[gpu][templates][large]") {
    RunOptions options = quick();
    options.timeoutSeconds = 600;
    int ran = 0;
    for (const auto& t : fixture().templates.templates()) {
        if (!selected(t->id()) || !t->hasLanguage("cuda")) continue;  // AMD-only templates cannot run here
        const SizeMap sizes = t->largeTestSizes();
        if (sizes.empty()) continue;
        INFO(t->id());
        CHECK(runChecked(*t, t->defaultConfig(), sizes, options));
        ++ran;
    }
    WARN(ran << " templates run past 2^31 bytes");
}

// The presets (`kx run --preset NAME`: a preselected set of one config for the device's arch)
// are the configs users are pointed to: each at every awkward size.
TEST_CASE("every preset of every template is correct at awkward sizes", "[gpu][templates]") {
    for (const auto& t : fixture().templates.templates()) {
        if (!selected(t->id()) || !t->hasLanguage("cuda")) continue;  // AMD-only templates cannot run here
        int ran = 0;
        for (const PreselectedSet& set : loadPreselected(*t)) {
            if (set.configs.size() != 1 || !set.coversArch(fixture().arch->name)) continue;
            const Config config = preselectedConfigs(set, t->defaultConfig()).front();
            for (const SizeMap& sizes : t->testSizes()) {
                INFO(t->id() << " --preset " << set.name);
                if (runChecked(*t, config, sizes)) ++ran;
            }
        }
        WARN(t->id() << ": " << ran << " preset runs");
    }
}

// Every combination of the parameters in the "Types" group (dtype x layout, op x dtype, ...) at
// every awkward size: these change which code path runs, so each pairing is checked.
TEST_CASE("every combination of each template's types is correct at awkward sizes", "[gpu][templates]") {
    for (const auto& t : fixture().templates.templates()) {
        if (!selected(t->id()) || !t->hasLanguage("cuda")) continue;  // AMD-only templates cannot run here
        std::vector<Config> configs{t->defaultConfig()};
        for (const ParamSpec& p : t->manifest().params) {
            if (p.group != "Types" || p.type != ParamType::Enum) continue;
            std::vector<Config> grown;
            for (const Config& c : configs)
                for (const EnumChoice& choice : p.choices) grown.push_back(t->withValues(c, {{p.name, choice.name}}));
            configs = std::move(grown);
        }
        // Many combinations (the map's operations x dtypes) run at the middle awkward size only.
        std::vector<SizeMap> sizes = t->testSizes();
        if (configs.size() > 12) sizes = {sizes[sizes.size() / 2]};
        int ran = 0;
        for (const Config& config : configs)
            for (const SizeMap& size : sizes)
                if (runChecked(*t, config, size)) ++ran;
        WARN(t->id() << ": " << ran << " type combinations x sizes run");
    }
}

// conv has more type combinations (direction x layout x dtype) than the walk above runs at every
// size: each one at every awkward size (1-D depthwise, 3-D strided, odd channels, padding past
// the filter's reach).
TEST_CASE("conv: every direction, layout and dtype at every awkward size", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv").get();
    REQUIRE(t);
    for (const std::string direction : {"fwd", "bwd_data", "bwd_weight"})
        for (const std::string layout : {"nhwgc", "nchw"})
            for (const std::string dtype : {"f16", "bf16", "f32"})
                for (const SizeMap& sizes : t->testSizes()) {
                    const Config config = t->withValues(t->defaultConfig(), {{"direction", direction}, {"layout", layout}, {"dtype", dtype}});
                    CHECK(runChecked(*t, config, sizes));
                }
}

// conv_wgmma: every direction, both dtypes and both stage widths at every awkward size that
// suits them (backward data needs stride 1), and bwd_weight with Split-K, more slices than
// stages included (empty slices must still write their zero partial sums), and with 32-wide
// mn-major slices: each direction must run at four configs and sizes at least.
TEST_CASE("conv_wgmma: every direction, dtype and stage width at every awkward size", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv_wgmma").get();
    REQUIRE(t);
    if (!runsOnThisGpu(*t)) return;
    for (const std::string direction : {"fwd", "bwd_data", "bwd_weight"}) {
        std::vector<std::map<std::string, std::string>> configs;
        for (const std::string dtype : {"f16", "bf16"})
            for (const std::string slice : {"64", "32"}) configs.push_back({{"direction", direction}, {"dtype", dtype}, {"SLICE", slice}});
        if (direction == "bwd_weight") {
            for (const std::string split : {"2", "32", "37"}) configs.push_back({{"direction", direction}, {"SPLITK", split}, {"BN", "64"}, {"MT", "2"}});
            // 32-wide mn-major slices: a tap's channels in 32-row copies (72 channels: three, the last part-filled), 32-wide tiles.
            configs.push_back({{"direction", direction}, {"MN_ATOM", "32"}, {"BN", "32"}, {"SPLITK", "4"}});
            configs.push_back({{"direction", direction}, {"MN_ATOM", "32"}, {"BN", "64"}, {"MT", "2"}, {"SLICE", "32"}, {"dtype", "bf16"}});
        }
        else  // the direct epilogue (the default stages its stores through shared memory)
            configs.push_back({{"direction", direction}, {"STORE", "direct"}, {"BN", "64"}, {"MT", "2"}});
        int ran = 0;
        for (const auto& values : configs)
            for (const SizeMap& sizes : t->testSizes())
                if (runChecked(*t, t->withValues(t->defaultConfig(), values), sizes)) ++ran;
        INFO(direction);
        CHECK(ran >= 4);
    }
}

// conv_wgmma's width fold (forward and bwd_weight with few input channels): forward with every
// dtype, stage width and store, and bwd_weight with every dtype with and without Split-K, its
// folded rows padded to 64 or (MN_ATOM=32) to 32 channels, at every
// awkward size that suits them, and at few-channel layers the unfolded kernel refuses: ResNet-50's
// first layer in small (3 channels, 7 x 7 at stride 2, padding 3), 5 channels in 2 groups in 3-D
// with a dilated filter at width stride 3, and one channel with a filter wider than the image.
TEST_CASE("conv_wgmma: the width fold at every awkward size and at few channels", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv_wgmma").get();
    REQUIRE(t);
    if (!runsOnThisGpu(*t)) return;
    std::vector<SizeMap> sizes = sizesWithFewChannels(*t);
    int forward = 0, weight = 0;
    for (const std::string dtype : {"f16", "bf16"}) {
        for (const std::string slice : {"32", "64"})
            for (const std::string store : {"direct", "staged"})
                for (const SizeMap& s : sizes)
                    if (runChecked(*t, t->withValues(t->defaultConfig(), {{"FOLD", "1"}, {"dtype", dtype}, {"SLICE", slice}, {"STORE", store}}), s))
                        ++forward;
        for (const std::string split : {"1", "4"})
            for (const std::string atom : {"64", "32"})
                for (const SizeMap& s : sizes)
                    if (runChecked(*t,
                                   t->withValues(t->defaultConfig(), {{"direction", "bwd_weight"}, {"FOLD", "1"}, {"dtype", dtype}, {"SPLITK", split},
                                                                      {"BN", "64"}, {"MT", "2"}, {"MN_ATOM", atom}}),
                                   s))
                        ++weight;
    }
    CHECK(forward == 8 * static_cast<int>(sizes.size()));
    CHECK(weight >= 4 * 3);  // at least the three few-channel layers (K a multiple of 8 for dy's rows)
}

// conv_wgmma's halo gather (stride 1, forward and backward data): both directions and dtypes,
// the filter resident and streamed with the stages,
// tiles 8, 16 and 32 pixels wide, both stage widths and stores, at every awkward size with stride
// 1 and at two more 3-D layers: UNet's first layer in small (its tiles cut at every edge), and 3
// groups with dilated depth and width and padding past the filter's reach. Several column tiles
// (K = 131) and groups make the resident filter be copied again between a block's tiles. One
// backward data config (K = 40, 32 channels a stage) needs exactly 48 KB of dynamic shared memory
// beside its static barriers: the runner must allow the block more than 48 KB.
TEST_CASE("conv_wgmma: the halo gather at every stride-1 awkward size", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv_wgmma").get();
    REQUIRE(t);
    if (!runsOnThisGpu(*t)) return;
    std::vector<SizeMap> sizes = t->testSizes();
    auto layer = [&](const SizeMap& changes) { sizes.push_back(defaultSizesWith(*t, changes)); };
    layer({{"N", 2}, {"C", 32}, {"K", 32}, {"Di", 9}, {"Hi", 13}, {"Wi", 17}, {"Z", 3}, {"pad_d", 1}});
    layer({{"N", 1}, {"G", 3}, {"C", 16}, {"K", 24}, {"Di", 4}, {"Hi", 5}, {"Wi", 19}, {"Z", 2}, {"pad_d", 2}, {"pad_h", 0}, {"pad_w", 4},
           {"dil_d", 2}, {"dil_w", 3}});
    for (const std::string direction : {"fwd", "bwd_data"}) {
        int ran = 0;
        for (const std::string filter : {"resident", "streamed"})
        for (const std::string dtype : {"f16", "bf16"})
            for (const std::string slice : {"32", "64"})
                for (const auto& [mt, consumers] : {std::pair{"1", "1"}, std::pair{"1", "2"}, std::pair{"2", "2"}})
                    for (const std::string store : {"direct", "staged"}) {
                        const Config c = t->withValues(t->defaultConfig(), {{"direction", direction}, {"GATHER", "halo"}, {"dtype", dtype}, {"SLICE", slice},
                                                                            {"BN", "32"}, {"MT", mt}, {"CONSUMERS", consumers}, {"STAGES", "2"}, {"STORE", store},
                                                                            {"HALO_FILTER", filter}});
                        for (const SizeMap& s : sizes)
                            if (runChecked(*t, c, s)) ++ran;
                    }
        INFO(direction);
        CHECK(ran >= 2 * 2 * 2 * 5 * 3);  // each filter, dtype and store at the five stride-1 sizes, with 32 channels a stage at least
    }
}

// conv_wgmma's backward data with the filter transposed (DATA_FILTER=transposed, k-major B from
// the prepare kernel's copy): both dtypes and stage widths, tiles 32, 64 and 128 channels wide
// with both stores, at every awkward size (strided phases, the patch layer walked phase by phase)
// and at channel counts the filter as stored refuses: ResNet-50's first layer in small (3
// channels, 7 x 7 at stride 2, padding 3), 5 channels in 2 groups in 3-D with a dilated filter at
// width stride 3, one channel at stride 1 (the staged store of 1-channel pixels), and 3 channels
// of a patch layer.
TEST_CASE("conv_wgmma: backward data with the filter transposed at every awkward size and at few channels", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv_wgmma").get();
    REQUIRE(t);
    if (!runsOnThisGpu(*t)) return;
    std::vector<SizeMap> sizes = sizesWithFewChannels(*t);
    sizes.push_back(defaultSizesWith(*t, {{"N", 2}, {"C", 3}, {"K", 32}, {"Hi", 12}, {"Wi", 20}, {"Y", 4}, {"X", 4}, {"stride_h", 4}, {"stride_w", 4}, {"pad_h", 0}, {"pad_w", 0}}));
    int ran = 0;
    for (const std::string dtype : {"f16", "bf16"})
        for (const std::string slice : {"32", "64"})
            for (const auto& [bn, mt, store] : {std::tuple{"32", "1", "direct"}, std::tuple{"64", "2", "staged"}, std::tuple{"128", "1", "staged"}}) {
                const Config c = t->withValues(t->defaultConfig(), {{"direction", "bwd_data"}, {"DATA_FILTER", "transposed"}, {"dtype", dtype},
                                                                    {"SLICE", slice}, {"BN", bn}, {"MT", mt}, {"STORE", store}});
                for (const SizeMap& s : sizes)
                    if (runChecked(*t, c, s)) ++ran;
            }
    CHECK(ran == 2 * 2 * 3 * static_cast<int>(sizes.size() - 1));  // all but the 1-D size, whose 131 filters are no multiple of 8
}

// The walk over parameter values starts from the fwd default, so it reaches Split-K only forward:
// every direction with slice counts that are powers of two and not (29: one wave of 9 tiles on
// 264 block slots), at every awkward size (strided bwd_data, whose stride phases do not split,
// included), both layouts, including more slices than K tiles (empty slices must still write
// their zero partial sums).
TEST_CASE("conv is correct with every Split-K in every direction", "[gpu][templates][conv]") {
    const Template* t = fixture().templates.find("conv").get();
    REQUIRE(t);
    int ran = 0;
    for (const std::string direction : {"fwd", "bwd_data", "bwd_weight"})
        for (const std::string layout : {"nhwgc", "nchw"})
            for (const std::string split : {"2", "3", "4", "29"})
                for (const SizeMap& sizes : t->testSizes()) {
                    const std::string dtype = split == "4" ? "f32" : split == "3" ? "bf16" : "f16";
                    const Config config =
                        t->withValues(t->defaultConfig(), {{"direction", direction}, {"layout", layout}, {"SPLITK", split}, {"dtype", dtype}});
                    if (runChecked(*t, config, sizes)) ++ran;
                }
    CHECK(ran == 3 * 2 * 4 * static_cast<int>(t->testSizes().size()));
}

// gemm_mma's 8-bit types need a deeper stage (Tile K 64) and layout rcr, so the walks above,
// which start from the f16 default, skip them: every dtype with every layout it allows, each at
// the smallest Tile K it takes, at every awkward size. fp8 needs sm_89, which runChecked's
// validity check decides.
TEST_CASE("gemm_mma: every dtype and layout at every awkward size", "[gpu][templates][gemm_mma]") {
    const Template* t = fixture().templates.find("gemm_mma").get();
    REQUIRE(t);
    int ran = 0;
    for (const std::string dtype : {"f16", "bf16", "tf32", "i8", "e4m3", "e5m2"})
        for (const std::string layout : {"rcr", "rrr", "crr", "ccr"}) {
            const bool eightBit = dtype == "i8" || dtype == "e4m3" || dtype == "e5m2";
            if (eightBit && layout != "rcr") continue;  // refused by a constraint, checked in test_engine
            const Config config = t->withValues(t->defaultConfig(), {{"dtype", dtype}, {"layout", layout}, {"BK", eightBit ? "64" : "32"}});
            for (const SizeMap& sizes : t->testSizes())
                if (runChecked(*t, config, sizes)) ++ran;
        }
    CHECK(ran >= 13 * 3);  // every pairing but fp8's on a GPU older than sm_89
}

// The fused epilogue: every activation with every D0 kind and both scalings, in f16 and tf32 and
// with A column-major, at the middle awkward size.
TEST_CASE("gemm_mma: every activation, D0 and scaling", "[gpu][templates][gemm_mma]") {
    const Template* t = fixture().templates.find("gemm_mma").get();
    REQUIRE(t);
    const SizeMap sizes = t->testSizes()[1];
    int ran = 0, index = 0;
    for (const std::string epilogue : {"none", "relu", "gelu_tanh", "gelu_erf", "sigmoid", "tanh", "silu"})
        for (const std::string d0 : {"none", "bias", "residual"})
            for (const std::string scale : {"unit", "scaled"}) {
                // dtype and layout take turns, so each activation meets both of each.
                const std::string dtype = index % 3 == 1 ? "tf32" : "f16", layout = index % 2 ? "ccr" : "rcr";
                ++index;
                const Config config =
                    t->withValues(t->defaultConfig(), {{"epilogue", epilogue}, {"d0", d0}, {"scale", scale}, {"dtype", dtype}, {"layout", layout}});
                if (runChecked(*t, config, sizes)) ++ran;
            }
    CHECK(ran == 7 * 3 * 2);
}

// Split-K: partial sums in fp32 (int32 for int8) added by a second kernel, which applies the
// epilogue. Slice counts that divide K's tiles, that do not, and more slices than tiles (empty
// slices must store zeros), with an epilogue, int8 and tf32, at every awkward size.
TEST_CASE("gemm_mma: Split-K with every type family and an epilogue", "[gpu][templates][gemm_mma]") {
    const Template* t = fixture().templates.find("gemm_mma").get();
    REQUIRE(t);
    const std::vector<std::vector<std::pair<std::string, std::string>>> families = {
        {{"epilogue", "gelu_erf"}, {"d0", "bias"}, {"scale", "scaled"}},
        {{"dtype", "i8"}, {"BK", "64"}},
        {{"dtype", "tf32"}, {"layout", "ccr"}, {"d0", "residual"}},
    };
    int ran = 0;
    for (const std::string split : {"2", "3", "16"})
        for (auto values : families) {
            values.emplace_back("SPLITK", split);
            const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
            for (const SizeMap& sizes : t->testSizes())
                if (runChecked(*t, config, sizes)) ++ran;
        }
    CHECK(ran == 3 * 3 * 3);
}

// Preshuffled B: the prepare launch rewrites B (any layout and type) in fragment order, padded
// with zeros to whole tiles, and the main loop reads it straight into registers. Every dtype and
// layout at every awkward size and one with many tiles, then Split-K (empty slices included)
// with an epilogue, whose slices start mid-way through the preshuffled k-steps.
TEST_CASE("gemm_mma: preshuffled B, every dtype and layout, with Split-K", "[gpu][templates][gemm_mma]") {
    const Template* t = fixture().templates.find("gemm_mma").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"M", 2053}, {"N", 1283}, {"K", 1008}});
    const std::map<std::string, std::string> tiles = {{"b_format", "preshuffled"}, {"BM", "128"}, {"BN", "128"}, {"WM", "64"}, {"WN", "32"}, {"STAGES", "4"}};
    int ran = 0, expected = 0;
    for (const std::string dtype : {"f16", "bf16", "tf32", "i8", "e4m3", "e5m2"})
        for (const std::string layout : {"rcr", "rrr", "crr", "ccr"}) {
            const bool eightBit = dtype == "i8" || dtype == "e4m3" || dtype == "e5m2";
            if (eightBit && layout != "rcr") continue;
            std::map<std::string, std::string> values = tiles;
            values.insert({{"dtype", dtype}, {"layout", layout}, {"BK", eightBit ? "64" : "32"}});
            const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
            for (const SizeMap& s : sizes) {
                expected += dtype[0] != 'e';  // fp8 needs sm_89
                if (runChecked(*t, config, s)) ++ran;
            }
        }
    for (const std::string split : {"3", "16"}) {
        std::map<std::string, std::string> values = tiles;
        values.insert({{"SPLITK", split}, {"layout", "rrr"}, {"epilogue", "silu"}, {"d0", "bias"}});
        const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
        for (const SizeMap& s : sizes) {
            ++expected;
            if (runChecked(*t, config, s)) ++ran;
        }
    }
    CHECK(ran >= expected);
}

// Persistent blocks, the pingpong schedule, 2-block clusters with B multicast and the staged
// epilogue (vector stores where rows of C are 16-byte aligned, element stores where not): at the awkward
// sizes (fewer tiles than SMs; an odd number of tile rows leaves a cluster's second block without
// rows) and at sizes with more tiles than the device holds at once, so that blocks walk several
// tiles, both consumers of a pingpong block take turns, and K spans fewer k-slices than stages
// (the parities of the stages' barriers are then reused across tiles) or many more.
TEST_CASE("gemm_wgmma: persistent blocks, pingpong, clusters and staged stores, every dtype", "[gpu][templates][gemm_wgmma]") {
    const Template* t = fixture().templates.find("gemm_wgmma").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"M", 4099}, {"N", 1031}, {"K", 80}});
    sizes.push_back({{"M", 2053}, {"N", 1283}, {"K", 1008}});
    const std::vector<std::vector<std::pair<std::string, std::string>>> schedules = {
        {{"PERSISTENT", "1"}},
        {{"PERSISTENT", "1"}, {"SCHEDULE", "pingpong"}},
        {{"PERSISTENT", "0"}, {"CLUSTER_M", "2"}},
        {{"PERSISTENT", "1"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}},
        {{"STORE", "direct"}},
    };
    int ran = 0;
    for (const std::string dtype : {"f16", "bf16", "tf32", "e4m3", "e5m2", "i8"})
        for (auto values : schedules) {
            values.emplace_back("dtype", dtype);
            const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
            for (const SizeMap& s : sizes)
                if (runChecked(*t, config, s)) ++ran;
        }
    // A pingpong tile of 128 rows (MT = 2, BN = 128), persistent clusters of it, staged stores.
    const Config tall = t->withValues(
        t->defaultConfig(), {{"BN", "128"}, {"MT", "2"}, {"PERSISTENT", "1"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}, {"STORE", "staged"}});
    for (const SizeMap& s : sizes)
        if (runChecked(*t, tall, s)) ++ran;
    CHECK(ran == (6 * 5 + 1) * static_cast<int>(sizes.size()));
}

// gemm_wgmma's layouts: f16 and bf16 with A and B each read k-major or mn-major (TMA slices of 64
// columns, wgmma's transpose bits), under the cooperative, pingpong-with-clusters and tall
// pingpong schedules and the direct store. The TMA needs every stored row to be a multiple of 16
// bytes, so the awkward sizes here are multiples of 8 but of no tile: one tile and less, a partial
// tile in every direction, and more tiles than SMs with K shorter than the pipeline.
TEST_CASE("gemm_wgmma: every layout", "[gpu][templates][gemm_wgmma]") {
    const Template* t = fixture().templates.find("gemm_wgmma").get();
    REQUIRE(t);
    const std::vector<SizeMap> sizes = {{{"M", 8}, {"N", 8}, {"K", 16}},
                                        {{"M", 136}, {"N", 264}, {"K", 1000}},
                                        {{"M", 2056}, {"N", 1288}, {"K", 80}}};
    const std::vector<std::vector<std::pair<std::string, std::string>>> schedules = {
        {{"PERSISTENT", "1"}},
        {{"PERSISTENT", "1"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}},
        {{"BN", "128"}, {"MT", "2"}, {"PERSISTENT", "1"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}, {"STORE", "direct"}},
    };
    int ran = 0;
    for (const std::string dtype : {"f16", "bf16"})
        for (const std::string layout : {"rcr", "rrr", "crr", "ccr"})
            for (auto values : schedules) {
                values.emplace_back("dtype", dtype);
                values.emplace_back("layout", layout);
                const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
                for (const SizeMap& s : sizes)
                    if (runChecked(*t, config, s)) ++ran;
            }
    CHECK(ran == 2 * 4 * 3 * static_cast<int>(sizes.size()));
}

// gemm_wgmma's Split-K: the slices' partial sums meet in a workspace and the last unit of each
// tile adds them and runs the epilogue. Every dtype (int8's sums exact), the cooperative,
// pingpong, cluster and one-block-per-unit schedules, a fused epilogue, and more slices than
// K has k-tiles (empty slices), at the awkward sizes and at a decode step's skinny shape.
TEST_CASE("gemm_wgmma: Split-K", "[gpu][templates][gemm_wgmma]") {
    const Template* t = fixture().templates.find("gemm_wgmma").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"M", 16}, {"N", 4096}, {"K", 4096}});
    sizes.push_back({{"M", 100}, {"N", 1000}, {"K", 3008}});
    const std::vector<std::vector<std::pair<std::string, std::string>>> configs = {
        {{"SPLITK", "4"}, {"BN", "128"}, {"CONSUMERS", "1"}},
        {{"SPLITK", "3"}, {"dtype", "bf16"}, {"SCHEDULE", "pingpong"}},
        {{"SPLITK", "2"}, {"dtype", "tf32"}, {"CLUSTER_M", "2"}, {"layout", "rcr"}},
        {{"SPLITK", "16"}, {"dtype", "e4m3"}, {"PERSISTENT", "0"}},
        {{"SPLITK", "6"}, {"dtype", "i8"}, {"STORE", "direct"}},
        {{"SPLITK", "8"}, {"BN", "128"}, {"MT", "2"}, {"epilogue", "gelu_tanh"}, {"d0", "bias"}, {"scale", "scaled"}},
        {{"SPLITK", "4"}, {"layout", "crr"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}},
    };
    int ran = 0;
    for (const auto& values : configs) {
        const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
        for (const SizeMap& s : sizes) {
            // crr needs rows of A (M long) that are whole 16-byte units.
            if (config.at("layout") == "crr" && s.at("M") % 8 != 0) continue;
            if (runChecked(*t, config, s)) ++ran;
        }
    }
    CHECK(ran == 6 * static_cast<int>(sizes.size()) + 1);
}

// gemm_wgmma with A and B swapped (C's transpose computed, so a skinny M fills a narrow wgmma) and
// narrow tiles without the swap: every dtype's path through the transposed store and epilogue
// (bias and residual indexed by C's row and column), with Split-K, clusters and pingpong.
TEST_CASE("gemm_wgmma: swapped operands and narrow tiles", "[gpu][templates][gemm_wgmma]") {
    const Template* t = fixture().templates.find("gemm_wgmma").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"M", 16}, {"N", 4096}, {"K", 4096}});
    sizes.push_back({{"M", 64}, {"N", 1000}, {"K", 3008}});
    const std::vector<std::vector<std::pair<std::string, std::string>>> configs = {
        {{"SWAP_AB", "1"}, {"BN", "16"}, {"CONSUMERS", "1"}, {"STORE", "direct"}},
        {{"SWAP_AB", "1"}, {"BN", "32"}, {"CONSUMERS", "1"}, {"STORE", "direct"}, {"SPLITK", "4"}, {"STAGES", "10"}, {"dtype", "bf16"},
         {"epilogue", "gelu_tanh"}, {"d0", "bias"}, {"scale", "scaled"}},
        {{"SWAP_AB", "1"}, {"BN", "64"}, {"STORE", "direct"}, {"SCHEDULE", "pingpong"}, {"CLUSTER_M", "2"}, {"dtype", "e4m3"}, {"d0", "residual"}},
        {{"SWAP_AB", "1"}, {"BN", "16"}, {"STORE", "direct"}, {"dtype", "tf32"}, {"SPLITK", "3"}, {"PERSISTENT", "0"}},
        {{"BN", "64"}, {"dtype", "i8"}},
        {{"BN", "16"}, {"STORE", "direct"}, {"dtype", "bf16"}, {"SPLITK", "2"}, {"d0", "bias"}},
    };
    CHECK(runEvery(*t, configs, sizes) == static_cast<int>(configs.size() * sizes.size()));
}

// fp8 operands with a bf16 or f32 C (and D0) on both tensor-core paths: every new dtype plain and
// with a fused epilogue that reads D0 in the output type, at the awkward sizes (cuBLASLt declines
// the rows that are not multiples of 16 bytes, and says so) and one with more tiles than SMs.
TEST_CASE("gemm_wgmma and gemm_mma: fp8 with bf16 and f32 outputs", "[gpu][templates][gemm_wgmma][gemm_mma]") {
    int ran = 0, expected = 0;
    for (const std::string id : {"gemm_wgmma", "gemm_mma"}) {
        const Template* t = fixture().templates.find(id).get();
        REQUIRE(t);
        std::vector<SizeMap> sizes = t->testSizes();
        sizes.push_back({{"M", 2053}, {"N", 1283}, {"K", 1008}});
        for (const std::string dtype : {"e4m3_bf16", "e4m3_f32", "e5m2_bf16", "e5m2_f32"})
            for (const bool fused : {false, true}) {
                std::map<std::string, std::string> values = {{"dtype", dtype}};
                if (id == "gemm_mma") values["BK"] = "64";  // a stage of two 32-byte k-steps
                if (fused) values.insert({{"epilogue", "gelu_tanh"}, {"d0", dtype.find("bf16") != std::string::npos ? "bias" : "residual"}, {"scale", "scaled"}});
                const Config config = t->withValues(t->defaultConfig(), {values.begin(), values.end()});
                for (const SizeMap& s : sizes) {
                    ++expected;
                    if (runChecked(*t, config, s)) ++ran;
                }
            }
    }
    CHECK(ran == expected);
}

// gemm_wgmma's fused epilogue, applied to the accumulators before either store: every activation
// with every D0 kind and both scalings, the dtype, store and schedule taking turns (so each
// activation meets f16, bf16, tf32 and e4m3, the staged and the direct store, cooperative and
// pingpong consumers), at the middle awkward size and at one with more tiles than SMs.
TEST_CASE("gemm_wgmma: every activation, D0 and scaling", "[gpu][templates][gemm_wgmma]") {
    const Template* t = fixture().templates.find("gemm_wgmma").get();
    REQUIRE(t);
    const std::vector<SizeMap> sizes = {t->testSizes()[1], {{"M", 2053}, {"N", 1283}, {"K", 1008}}};
    int ran = 0, index = 0;
    for (const std::string epilogue : {"none", "relu", "gelu_tanh", "gelu_erf", "sigmoid", "tanh", "silu"})
        for (const std::string d0 : {"none", "bias", "residual"})
            for (const std::string scale : {"unit", "scaled"}) {
                static const char* const dtypes[] = {"f16", "bf16", "tf32", "e4m3"};
                const std::string dtype = dtypes[index % 4], store = index % 3 == 2 ? "direct" : "staged",
                                  schedule = index % 2 ? "pingpong" : "cooperative";
                ++index;
                const Config config = t->withValues(t->defaultConfig(), {{"epilogue", epilogue},
                                                                         {"d0", d0},
                                                                         {"scale", scale},
                                                                         {"dtype", dtype},
                                                                         {"STORE", store},
                                                                         {"SCHEDULE", schedule}});
                for (const SizeMap& s : sizes)
                    if (runChecked(*t, config, s)) ++ran;
            }
    CHECK(ran == 7 * 3 * 2 * 2);
}

// radix_sort's one-sweep: the histogram and the decoupled look-back across tiles, with keys and
// pairs, every digit width (BITS 5 and 7 leave a short last digit), both rankings, a block with
// fewer threads than digits (two digits a thread in the per-digit steps), a block whose warps'
// offsets outgrow the tile, one and sixteen tiles per look-back load, and a tile count in the
// thousands, at the awkward sizes and at a whole number of tiles.
TEST_CASE("radix_sort: one-sweep with every digit width and block shape and both rankings", "[gpu][templates][radix_sort]") {
    const Template* t = fixture().templates.find("radix_sort").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"n", 4096 * 1000}});
    const std::vector<std::vector<std::pair<std::string, std::string>>> configs = {
        {{"BITS", "4"}},
        {{"BITS", "5"}, {"sort", "pairs"}},
        {{"BITS", "6"}, {"rank", "match"}},
        {{"BITS", "7"}},
        {{"sort", "pairs"}},
        {{"rank", "match"}, {"sort", "pairs"}},
        {{"BLOCK", "128"}, {"ITEMS", "8"}},
        {{"BLOCK", "384"}, {"ITEMS", "24"}, {"MIN_BLOCKS", "2"}},
        {{"BLOCK", "1024"}, {"ITEMS", "4"}, {"MIN_BLOCKS", "1"}, {"sort", "pairs"}},
        {{"LOOKBACK", "1"}, {"MIN_BLOCKS", "1"}},
        {{"LOOKBACK", "16"}},
        {{"algorithm", "classic"}, {"sort", "pairs"}, {"BITS", "5"}},
    };
    CHECK(runEvery(*t, configs, sizes) == static_cast<int>(configs.size() * sizes.size()));
}

// stencil's smem_vec4: 16-byte copies when nx is a multiple of 4 (132, 4, 512) and single-point
// copies of the same chunks when it is not (the awkward sizes), both orders, a tile narrower and
// one wider than a warp's four points, one and four planes ahead, chunks of z that do not divide
// the grid, and x tiles that end past the grid.
TEST_CASE("stencil: four points a thread, aligned rows and not, both orders", "[gpu][templates][stencil]") {
    const Template* t = fixture().templates.find("stencil").get();
    REQUIRE(t);
    std::vector<SizeMap> sizes = t->testSizes();
    sizes.push_back({{"nx", 132}, {"ny", 45}, {"nz", 33}});
    sizes.push_back({{"nx", 4}, {"ny", 7}, {"nz", 9}});
    sizes.push_back({{"nx", 512}, {"ny", 96}, {"nz", 70}});
    const std::vector<std::vector<std::pair<std::string, std::string>>> configs = {
        {{"strategy", "smem_vec4"}, {"order", "2"}, {"TX", "64"}, {"TY", "8"}, {"PREFETCH", "2"}},
        {{"strategy", "smem_vec4"}, {"order", "2"}, {"TX", "128"}, {"TY", "4"}, {"PREFETCH", "4"}, {"ZCHUNK", "16"}},
        {{"strategy", "smem_vec4"}, {"order", "2"}, {"TX", "16"}, {"TY", "2"}, {"PREFETCH", "1"}, {"ZCHUNK", "32"}},
        {{"strategy", "smem_vec4"}, {"order", "8"}, {"TX", "64"}, {"TY", "8"}, {"PREFETCH", "1"}},
        {{"strategy", "smem_vec4"}, {"order", "8"}, {"TX", "32"}, {"TY", "4"}, {"PREFETCH", "0"}, {"ZCHUNK", "16"}},
    };
    CHECK(runEvery(*t, configs, sizes) == static_cast<int>(configs.size() * sizes.size()));
}

// attention_wgmma with head dimension 256: m64n256k16 output products from registers, Q in four
// 128-byte slices, 64 keys a step in two stages (what fits 227 KB of shared memory). Both dtypes,
// both masks, with and without the log-sum-exp, overlapped and not, at every awkward size
// (lengths that are no multiple of the tile, more keys than queries and fewer, grouped-query).
TEST_CASE("attention_wgmma: head dimension 256", "[gpu][templates][attention_wgmma]") {
    const Template* t = fixture().templates.find("attention_wgmma").get();
    REQUIRE(t);
    std::vector<std::vector<std::pair<std::string, std::string>>> configs;
    for (const std::string dtype : {"f16", "bf16"})
        for (const std::string mask : {"none", "causal"})
            configs.push_back({{"HEAD_DIM", "256"}, {"BLOCK_N", "64"}, {"STAGES", "2"}, {"OVERLAP", mask == "none" ? "false" : "true"},
                               {"dtype", dtype}, {"mask", mask}, {"LSE", dtype == "f16" ? "true" : "false"}});
    const std::vector<SizeMap> sizes = t->testSizes();
    CHECK(runEvery(*t, configs, sizes) == static_cast<int>(configs.size() * sizes.size()));
}
