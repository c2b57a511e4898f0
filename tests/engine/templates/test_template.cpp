#include "../test_support.hpp"
#include "templates/expression.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace kx::engine;
using kx::test::fakeArch;
using kx::test::sourceDir;

namespace {
const std::filesystem::path kFixtures = sourceDir() / "tests/engine/templates/data";

std::shared_ptr<const Template> tinyTemplate() {
    static TemplateLibrary lib = TemplateLibrary::load(kFixtures);
    auto t = lib.find("tiny");
    REQUIRE(t);
    return t;
}
}  // namespace

TEST_CASE("expressions evaluate arithmetic, comparisons and our functions", "[templates]") {
    VariableMap v{{"BM", 128}, {"WM", 64}};
    CHECK(evaluateExpression("BM % WM == 0", v) == 1);
    CHECK(evaluateExpression("BM % 48", v) == 32);
    CHECK(evaluateExpression("ceil_div(1000, BM)", v) == 8);
    CHECK(evaluateExpression("is_pow2(BM) && !is_pow2(96)", v) == 1);
    CHECK(evaluateExpression("min(BM, WM) * 2 + max(1, 3)", v) == 131);
    CHECK(evaluateExpression("BM > 64 ? 1 : 0", v) == 1);
    CHECK(evaluateExpression("floor(7.5) + ceil(7.5)", v) == 15);
    CHECK_THROWS_WITH(evaluateExpression("BM + UNKNOWN", v), Catch::Contains("UNKNOWN"));
    CHECK_THROWS_AS(evaluateExpression("BM +* 2", v), InputError);
}

TEST_CASE("a manifest loads with its parameters, derived values, constraints and sizes", "[templates]") {
    auto t = tinyTemplate();
    const TemplateManifest& m = t->manifest();
    CHECK(m.title == "Tiny scale kernel");
    REQUIRE(m.params.size() == 4);
    CHECK(m.params[0].type == ParamType::Enum);
    CHECK(m.params[1].allowed == std::vector<long long>{32, 64, 128, 256, 2048});
    CHECK(m.params[2].minValue == 1);
    CHECK(m.params[2].maxValue == 8);
    CHECK(m.params[3].type == ParamType::Bool);
    CHECK(m.constraints.size() == 3);
    CHECK(m.sizes.size() == 1);
    CHECK(m.args.size() == 2);
}

TEST_CASE("configs are value types with procedural names and stable hashes", "[templates]") {
    auto t = tinyTemplate();
    const Config def = t->defaultConfig();
    CHECK(t->configName(def) == "tiny_f32_b128_u2");
    CHECK(def.canonical() == "tiny:BLOCK=128,FAST=false,UNROLL=2,dtype=f32");
    const Config other = t->withValues(def, {{"BLOCK", "64"}, {"dtype", "f16"}});
    CHECK(t->configName(other) == "tiny_f16_b64_u2");
    CHECK(other != def);
    CHECK(other.hash() != def.hash());
    CHECK(t->withValues(def, {}) == def);
    CHECK(t->withValues(def, {}).hash() == def.hash());
    CHECK(t->withValues(def, {{"FAST", "on"}}).at("FAST") == "true");
}

TEST_CASE("an optional part of a name ({PARAM?}) appears only away from the parameter's default", "[templates]") {
    auto t = tinyTemplate();
    const Config def = t->defaultConfig();
    CHECK(t->configName(t->withValues(def, {{"FAST", "false"}})) == "tiny_f32_b128_u2");
    CHECK(t->configName(t->withValues(def, {{"FAST", "true"}})) == "tiny_f32_b128_u2_true");
    CHECK(t->configName(t->withValues(def, {{"FAST", "true"}, {"UNROLL", "3"}})) == "tiny_f32_b128_u3_true");
}

TEST_CASE("an optional part may name its own prefix ({PARAM?prefix})", "[templates]") {
    const kx::test::ScratchFolder root("optional_prefix");
    std::filesystem::copy(kFixtures / "tiny", root.path / "tiny");
    const std::filesystem::path manifest = root.path / "tiny" / "manifest.xml";
    std::ifstream in(manifest);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("{FAST?}"), 7, "{FAST?_fast}{BLOCK?_b}");
    std::ofstream(manifest) << text;
    const TemplateLibrary lib = TemplateLibrary::load(root.path);
    const auto t = lib.find("tiny");
    REQUIRE(t);
    CHECK(t->configName(t->defaultConfig()) == "tiny_f32_b128_u2");
    CHECK(t->configName(t->withValues(t->defaultConfig(), {{"FAST", "true"}, {"BLOCK", "64"}})) == "tiny_f32_b64_u2_fasttrue_b64");
}

TEST_CASE("bad values are refused with what is allowed", "[templates]") {
    auto t = tinyTemplate();
    const Config def = t->defaultConfig();
    CHECK_THROWS_WITH(t->withValues(def, {{"BLOCKS", "64"}}), Catch::Contains("'BLOCKS' is not a parameter of tiny"));
    CHECK_THROWS_WITH(t->withValues(def, {{"BLOCK", "96"}}), Catch::Contains("one of 32, 64, 128, 256, 2048"));
    CHECK_THROWS_WITH(t->withValues(def, {{"UNROLL", "9"}}), Catch::Contains("an integer from 1 to 8"));
    CHECK_THROWS_WITH(t->withValues(def, {{"UNROLL", "two"}}), Catch::Contains("UNROLL=two is not allowed"));
    CHECK_THROWS_WITH(t->withValues(def, {{"dtype", "f64"}}), Catch::Contains("one of f32, f16"));
    CHECK_THROWS_WITH(t->withValues(def, {{"FAST", "maybe"}}), Catch::Contains("true or false"));
}

TEST_CASE("constraints report every violation with filled-in messages", "[templates]") {
    auto t = tinyTemplate();
    const kx::engine::Arch arch = fakeArch(1024);
    CHECK(t->validate(t->defaultConfig(), arch).empty());

    const Config bad = t->withValues(t->defaultConfig(), {{"BLOCK", "2048"}, {"UNROLL", "3"}});
    const auto violations = t->validate(bad, arch);
    REQUIRE(violations.size() == 1 + 1);
    CHECK(violations[0].message == "2048 threads exceed the sm_test limit of 1024 per block");
    CHECK(violations[1].message == "UNROLL (3) must be a power of two");
    CHECK(violations[0].line > 0);

    const Config small = t->withValues(t->defaultConfig(), {{"BLOCK", "32"}, {"UNROLL", "1"}});
    const auto smallViolations = t->validate(small, arch);
    REQUIRE(smallViolations.size() == 1);
    CHECK(smallViolations[0].message == "items per block (32) must be a multiple of 64");
}

TEST_CASE("rendering fills every placeholder", "[templates]") {
    auto t = tinyTemplate();
    const std::string src = t->render(t->withValues(t->defaultConfig(), {{"dtype", "f16"}}), fakeArch());
    CHECK(src.find("${") == std::string::npos);
    CHECK(src.find("void tiny_f16_b128_u2(__half* x, int n)") != std::string::npos);
    CHECK(src.find("blockIdx.x * 256 + threadIdx.x") != std::string::npos);
    CHECK(src.find("for sm_test") != std::string::npos);
}

TEST_CASE("launch geometry, flops and bytes come from the manifest formulas", "[templates]") {
    auto t = tinyTemplate();
    const Config c = t->defaultConfig();
    const SizeMap sizes = t->withSizes({{"n", "1000"}});
    const LaunchGeometry g = t->launch(c, fakeArch(), sizes);
    CHECK(g.grid[0] == 4);  // ceil(1000 / 256)
    CHECK(g.block[0] == 128);
    CHECK(g.threadsPerBlock() == 128);
    CHECK(t->flops(c, fakeArch(), sizes) == 1000);
    CHECK(t->minBytes(c, fakeArch(), sizes) == 8000);
    CHECK_THROWS_WITH(t->withSizes({{"m", "3"}}), Catch::Contains("not a problem size"));
    CHECK_THROWS_WITH(t->withSizes({{"n", "0"}}), Catch::Contains("below its minimum"));
}

TEST_CASE("malformed templates are reported with file and line, and good ones still load", "[templates]") {
    TemplateLibrary lib = TemplateLibrary::load(kFixtures);
    CHECK(lib.find("tiny"));
    CHECK(lib.find("bad_placeholder"));  // loads; fails when rendered
    REQUIRE(lib.errors().size() == 2);
    const LoadError& xml = lib.errors()[0];
    CHECK(xml.file.find("bad_type") != std::string::npos);
    CHECK(xml.line == 7);
    CHECK(xml.message.find("unknown type 'float'") != std::string::npos);
    const LoadError& broken = lib.errors()[1];
    CHECK(broken.file.find("bad_xml") != std::string::npos);
    CHECK(broken.line > 0);
    CHECK(broken.message.find("malformed XML") != std::string::npos);
}

TEST_CASE("an unknown placeholder fails loudly with file and line", "[templates]") {
    TemplateLibrary lib = TemplateLibrary::load(kFixtures);
    auto t = lib.find("bad_placeholder");
    REQUIRE(t);
    CHECK_THROWS_WITH(t->render(t->defaultConfig(), fakeArch()),
                      Catch::Contains("k.cu:3: placeholder ${BLOKC} names no parameter"));
}
