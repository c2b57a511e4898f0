// Sweep spaces: --vary forms and their errors, indexing, seeded sampling, preselected sets and
// config lists (with file:line errors).
#include "sweep_test_support.hpp"

#include "arch/arch_database.hpp"
#include "sweep/preselected.hpp"
#include "sweep/slurm.hpp"
#include "sweep/space.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace kx::engine;
using kx::test::errorOf;
using kx::test::gemmMma;

namespace {

const TemplateLibrary& library() { return kx::test::shippedTemplates(); }

fs::path scratchFile(const std::string& name, const std::string& text) {
    const fs::path dir = fs::temp_directory_path() / ("kx-sweep-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::trunc) << text;
    return p;
}

}  // namespace

TEST_CASE("a --vary option takes listed values, every allowed value, or a range", "[sweep][space]") {
    const Template& t = gemmMma();
    CHECK(parseVary(t, "BM=64,128").values == std::vector<std::string>{"64", "128"});
    CHECK(parseVary(t, "BM").values == std::vector<std::string>{"32", "64", "128", "256"});
    CHECK(parseVary(t, "STAGES=2..4").values == std::vector<std::string>{"2", "3", "4"});
    CHECK(parseVary(t, "STAGES").values == std::vector<std::string>{"2", "3", "4", "5", "6"});
    CHECK(parseVary(t, "BN=32,64..128").values == std::vector<std::string>{"32", "64", "128"});
    CHECK(parseVary(t, "BN=64,64,128").values == std::vector<std::string>{"64", "128"});  // no repeats
    CHECK(parseVary(t, "dtype").values ==
          std::vector<std::string>{"f16", "bf16", "tf32", "i8", "e4m3", "e5m2", "e4m3_bf16", "e4m3_f32", "e5m2_bf16", "e5m2_f32"});

    CHECK_THAT(errorOf([&] { parseVary(t, "XX=1"); }), Catch::Contains("'XX': not a parameter of gemm_mma"));
    CHECK_THAT(errorOf([&] { parseVary(t, "BM=48"); }), Catch::Contains("BM=48 is not allowed: BM must be one of 32, 64, 128, 256"));
    CHECK_THAT(errorOf([&] { parseVary(t, "STAGES=5..3"); }), Catch::Contains("is empty"));
    CHECK_THAT(errorOf([&] { parseVary(t, "STAGES=7..9"); }), Catch::Contains("no allowed value lies in 7..9"));
    CHECK_THAT(errorOf([&] { parseVary(t, "dtype=1..2"); }), Catch::Contains("needs an int parameter"));
    CHECK_THAT(errorOf([&] { parseVary(t, "BM="); }), Catch::Contains("lists no values"));
    CHECK_THAT(errorOf([&] { makeSpace(t, {t.defaultConfig()}, {"BM=64", "BM=128"}); }), Catch::Contains("given twice"));
}

TEST_CASE("a space crosses its bases with its axes, the last axis fastest", "[sweep][space]") {
    const Template& t = gemmMma();
    const Config base = t.defaultConfig();
    const SweepSpace space = makeSpace(t, {base, t.withValues(base, {{"dtype", "bf16"}})}, {"BM=64,128", "STAGES=2..4"});
    REQUIRE(space.size() == 12);
    CHECK(space.at(0).at("dtype") == "f16");
    CHECK(space.at(0).at("BM") == "64");
    CHECK(space.at(0).at("STAGES") == "2");
    CHECK(space.at(1).at("STAGES") == "3");
    CHECK(space.at(3).at("BM") == "128");
    CHECK(space.at(6).at("dtype") == "bf16");
    CHECK(space.at(11).at("BN") == base.at("BN"));  // not varied: the base's

    const std::vector<Config> all = spaceConfigs(space);
    REQUIRE(all.size() == 12);
    std::set<std::string> distinct;
    for (const Config& c : all) distinct.insert(c.canonical());
    CHECK(distinct.size() == 12);

    // Bases that meet under the axes give each config once.
    const SweepSpace overlapping = makeSpace(t, {base, t.withValues(base, {{"BM", "64"}})}, {"BM=64,128"});
    CHECK(overlapping.size() == 4);
    CHECK(spaceConfigs(overlapping).size() == 2);
}

TEST_CASE("sampling draws distinct configs, the same for the same seed", "[sweep][space]") {
    const Template& t = gemmMma();
    const SweepSpace space = makeSpace(t, {t.defaultConfig()}, {"BM", "BN", "BK", "WM", "WN", "STAGES", "GROUP_M"});
    REQUIRE(space.size() == 4 * 4 * 3 * 4 * 4 * 5 * 5);
    const auto a = spaceConfigs(space, 50, 7), b = spaceConfigs(space, 50, 7), c = spaceConfigs(space, 50, 8);
    REQUIRE(a.size() == 50);
    CHECK(a == b);
    CHECK(a != c);
    std::set<std::string> distinct;
    for (const Config& x : a) distinct.insert(x.canonical());
    CHECK(distinct.size() == 50);
    CHECK(spaceConfigs(space, 1000000, 1).size() == space.size());  // a sample as large as the space is the space

    const SweepSpace huge = makeSpace(*library().find("gemm"), {library().find("gemm")->defaultConfig()},
                                      {"BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES", "VEC", "dtype", "layout"});
    CHECK_THAT(errorOf([&] { spaceConfigs(huge); }), Catch::Contains("draw a --sample"));
    CHECK(spaceConfigs(huge, 10, 1).size() == 10);
}

TEST_CASE("the shipped preselected sets load and every config in them is valid", "[sweep][preselected]") {
    for (const char* id : {"gemm", "gemm_mma"}) {
        const Template& t = *library().find(id);
        const auto sets = loadPreselected(t);
        INFO(id);
        REQUIRE(sets.size() >= 2);
        const PreselectedSet& set = findPreselected(sets, t, sets.front().name, "sm_90");
        const auto configs = preselectedConfigs(set, t.defaultConfig());
        CHECK(configs.size() == set.configs.size());
        const kx::engine::Arch arch = kx::test::fakeArch();
        for (const Config& c : configs) {
            INFO(t.configName(c));
            CHECK(t.validate(c, arch).empty());
        }
    }
    const Template& t = gemmMma();
    const auto sets = loadPreselected(t);
    CHECK(findPreselected(sets, t, "tensor_core_tiles", "sm_90a").name == "tensor_core_tiles");  // sm_90a is an sm_90
    CHECK(findPreselected(sets, t, "small_tiles", "sm_75").name == "small_tiles");               // arches="any"
    CHECK_THAT(errorOf([&] { findPreselected(sets, t, "tensor_core_tiles", "sm_75"); }),
               Catch::Contains("no preselected set 'tensor_core_tiles' of gemm_mma for sm_75 (it is for sm_80"));
    CHECK_THAT(errorOf([&] { findPreselected(sets, t, "nope", "sm_90"); }), Catch::Contains("sets for sm_90: tensor_core_tiles, small_tiles"));
    // A set's configs keep what they leave out from the base.
    const auto bf16 = preselectedConfigs(findPreselected(sets, t, "small_tiles", "sm_90"), t.withValues(t.defaultConfig(), {{"dtype", "bf16"}}));
    CHECK(bf16.front().at("dtype") == "bf16");
    CHECK(bf16.front().at("BM") == "64");
}

// What `kx run --preset NAME` and the app's preset menu offer for an arch must compile there: a
// set of one config (a preset) is valid on every compilable arch it names where the template
// itself is (its default config valid there). A set of several is a space to sweep, whose
// configs keep the base's other values (a tile that fits the 7-point stencil may not fit the
// 25-point one): on each such arch at least one of them is valid with the default base.
TEST_CASE("every shipped preset is valid on every arch it is offered for", "[sweep][preselected]") {
    const ArchDatabase db = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    int presets = 0, sets = 0;
    for (const auto& t : library().templates()) {
        for (const PreselectedSet& set : loadPreselected(*t)) {
            for (const kx::engine::Arch& arch : db.arches()) {
                if (!arch.compilable || !set.coversArch(arch.name)) continue;
                if (arch.vendor == Vendor::Amd && !t->hasLanguage("hip")) continue;
                if (!t->validate(t->defaultConfig(), arch).empty()) continue;  // the template does not apply here
                int valid = 0;
                for (const Config& c : preselectedConfigs(set, t->defaultConfig())) {
                    const auto violations = t->validate(c, arch);
                    valid += violations.empty();
                    if (set.configs.size() != 1) continue;
                    INFO(t->id() << " --preset " << set.name << " on " << arch.name << ": " << t->configName(c));
                    for (const auto& v : violations) UNSCOPED_INFO(v.message);
                    CHECK(violations.empty());
                    ++presets;
                }
                if (set.configs.size() > 1) {
                    INFO(t->id() << " set " << set.name << " on " << arch.name);
                    CHECK(valid > 0);
                    ++sets;
                }
            }
        }
    }
    CHECK(presets > 100);
    CHECK(sets > 50);
}

// A set may name the problem it was tuned for: kx run --preset and the app's Start from run there,
// the template's defaults under it and --size over it.
TEST_CASE("a preselected set keeps the problem it names, in its order, under --size", "[sweep][preselected]") {
    const Template& t = gemmMma();
    const fs::path p = scratchFile("sized.xml", "<preselected template=\"gemm_mma\">\n"
                                                "  <set name=\"skinny\" arches=\"sm_90\" size=\"M=16, N=8192,K=8192\"><config BM=\"64\"/></set>\n"
                                                "  <set name=\"plain\" arches=\"sm_90\"><config BM=\"64\"/></set>\n</preselected>\n");
    const auto sets = loadPreselected(t, p);
    const PreselectedSet& skinny = findPreselected(sets, t, "skinny", "sm_90");
    REQUIRE(skinny.sizes.size() == 3);
    CHECK(skinny.sizes.front() == std::make_pair(std::string("M"), std::string("16")));
    CHECK(preselectedSizesText(skinny) == "M=16, N=8192, K=8192");
    CHECK(preselectedSizes(t, &skinny, {}) == SizeMap{{"M", 16}, {"N", 8192}, {"K", 8192}});
    CHECK(preselectedSizes(t, &skinny, {{"N", "4096"}}) == SizeMap{{"M", 16}, {"N", 4096}, {"K", 8192}});
    const PreselectedSet& plain = findPreselected(sets, t, "plain", "sm_90");
    CHECK(plain.sizes.empty());
    CHECK(preselectedSizesText(plain).empty());
    CHECK(preselectedSizes(t, &plain, {{"M", "7"}}) == t.withSizes({{"M", "7"}}));
    CHECK(preselectedSizes(t, nullptr, {}) == t.defaultSizes());
    CHECK_THAT(errorOf([&] { preselectedSizes(t, &skinny, {{"Q", "1"}}); }), Catch::Contains("'Q' is not a problem size of gemm_mma"));

    // The shipped sets that name a problem: conv's preset for ResNet-50's stage-3 3x3 layer.
    const Template& conv = *library().find("conv");
    const auto convSets = loadPreselected(conv);
    const SizeMap layer = preselectedSizes(conv, &findPreselected(convSets, conv, "bwd_weight_3x3", "sm_90"), {});
    CHECK(layer.at("C") == 128);
    CHECK(layer.at("Hi") == 28);
    CHECK(layer.at("Y") == 3);  // the default, left as it is
}

TEST_CASE("a malformed preselected file names its file and line", "[sweep][preselected]") {
    const Template& t = gemmMma();
    auto loadText = [&](const std::string& name, const std::string& text) {
        const fs::path p = scratchFile(name, text);
        return std::make_pair(p.string(), errorOf([&] { loadPreselected(t, p); }));
    };
    {
        auto [file, error] = loadText("bad_value.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\">\n"
                                      "    <config BM=\"128\"/>\n    <config BM=\"48\"/>\n  </set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":4: BM=48 is not allowed"));
    }
    {
        auto [file, error] = loadText("bad_param.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\">\n"
                                      "    <config TILE=\"128\"/>\n  </set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":3: 'TILE' is not a parameter of gemm_mma"));
    }
    {
        auto [file, error] = loadText("bad_xml.xml", "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\">\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":"));
        CHECK_THAT(error, Catch::Contains("malformed XML"));
    }
    {
        auto [file, error] = loadText("no_arches.xml", "<preselected template=\"gemm_mma\">\n\n  <set name=\"a\">\n    <config/>\n  </set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":3: <set name=\"a\"> needs arches="));
    }
    {
        auto [file, error] = loadText("twice.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\"><config/></set>\n"
                                      "  <set name=\"a\" arches=\"sm_80,sm_90\"><config/></set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":3: set 'a' is already defined for sm_90 at line 2"));
    }
    {
        auto [file, error] = loadText("bad_size.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\"\n"
                                      "       size=\"M=16,Q=3\"><config/></set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":2: set 'a': 'Q' is not a problem size of gemm_mma (sizes: M, N, K)"));
    }
    {
        auto [file, error] = loadText("size_text.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"a\" arches=\"sm_90\" size=\"M=sixteen\"><config/></set>\n"
                                      "  <set name=\"b\" arches=\"sm_90\" size=\"M\"><config/></set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":2: set 'a': size M=sixteen is not an integer"));
    }
    {
        auto [file, error] = loadText("size_item.xml", "<preselected template=\"gemm_mma\">\n  <set name=\"b\" arches=\"sm_90\" size=\"M\"><config/></set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":2: set 'b': size=\"...\" expects NAME=VALUE items, got 'M'"));
    }
    {
        auto [file, error] = loadText("size_twice.xml",
                                      "<preselected template=\"gemm_mma\">\n  <set name=\"b\" arches=\"sm_90\" size=\"M=1,M=2\"><config/></set>\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":2: set 'b' names size M twice"));
    }
    {
        auto [file, error] = loadText("other.xml", "<preselected template=\"gemm\">\n</preselected>\n");
        CHECK_THAT(error, Catch::StartsWith(file + ":1: <preselected> must name its template"));
    }
}

TEST_CASE("config lists read back what configLine writes, and name file and line on errors", "[sweep][configs]") {
    const Template& t = gemmMma();
    const Config a = t.withValues(t.defaultConfig(), {{"BM", "64"}, {"STAGES", "4"}});
    const fs::path list = scratchFile("list.txt", "# shard 0\n" + configLine(a) + "\n\n  BN=128 , BK=64\n");
    const auto configs = readConfigList(t, t.defaultConfig(), list);
    REQUIRE(configs.size() == 2);
    CHECK(configs[0] == a);
    CHECK(configs[1].at("BN") == "128");
    CHECK(configs[1].at("BK") == "64");
    CHECK(configs[1].at("BM") == t.defaultConfig().at("BM"));

    const fs::path bad = scratchFile("bad.txt", "BM=64\nBM=64,BN\n");
    CHECK_THAT(errorOf([&] { readConfigList(t, t.defaultConfig(), bad); }), Catch::StartsWith(bad.string() + ":2: expected KEY=VALUE"));
    const fs::path badValue = scratchFile("bad_value.txt", "\nSTAGES=9\n");
    CHECK_THAT(errorOf([&] { readConfigList(t, t.defaultConfig(), badValue); }), Catch::StartsWith(badValue.string() + ":2: STAGES=9 is not allowed"));
}
