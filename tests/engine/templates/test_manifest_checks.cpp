// Manifests that name bad sources, bad name patterns or values that divide by zero are refused
// when the library loads, with file and line, and never stop the other templates from loading.
#include "../test_support.hpp"

#include "run/dtype.hpp"
#include "run/run_limits.hpp"
#include "templates/expression.hpp"
#include "templates/manifest_checks.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path freshLibraryDir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("kx-manifest-checks-" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

struct Edited {
    TemplateLibrary lib;
    fs::path manifest;
};

// A library of two templates: the tiny fixture untouched ("tiny") and a copy ("broken") with
// each `from` of its manifest replaced by `to`.
Edited loadEdited(const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits) {
    const fs::path fixture = kx::test::sourceDir() / "tests/engine/templates/data/tiny";
    const fs::path dir = freshLibraryDir(name);
    fs::copy(fixture, dir / "tiny", fs::copy_options::recursive);
    fs::copy(fixture, dir / "broken", fs::copy_options::recursive);
    std::string text = readText(fixture / "manifest.xml");
    auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    replace("id=\"tiny\"", "id=\"broken\"");
    for (const auto& [from, to] : edits) replace(from, to);
    const fs::path manifest = dir / "broken" / "manifest.xml";
    std::ofstream(manifest, std::ios::binary) << text;
    return {TemplateLibrary::load(dir), manifest};
}

// The broken copy is refused with one error at `line` whose message holds `text`; tiny loads.
void requireRefused(const Edited& e, int line, const std::string& text) {
    INFO("errors: " << (e.lib.errors().empty() ? std::string("none") : e.lib.errors().front().toString()));
    REQUIRE(e.lib.errors().size() == 1);
    const LoadError& err = e.lib.errors().front();
    CHECK(err.file == e.manifest.string());
    CHECK(err.line == line);
    CHECK_THAT(err.message, Catch::Contains(text));
    CHECK(err.message.find('\n') == std::string::npos);
    CHECK(e.lib.find("broken") == nullptr);
    CHECK(e.lib.find("tiny") != nullptr);
}

}  // namespace

TEST_CASE("the fixture used by the manifest checks loads cleanly", "[templates][reliability]") {
    const Edited e = loadEdited("clean", {});
    CHECK(e.lib.errors().empty());
    CHECK(e.lib.find("broken") != nullptr);
}

TEST_CASE("every template in the repository passes the load-time manifest checks", "[templates][reliability]") {
    const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    for (const LoadError& e : lib.errors()) FAIL(e.toString());
    CHECK(lib.templates().size() >= 10);
}

TEST_CASE("a size's large test value must be an integer no smaller than its minimum", "[templates][reliability]") {
    const std::string size = "<size name=\"n\" default=\"1000\" min=\"1\"";
    requireRefused(loadEdited("large_word", {{size, size + " large=\"big\""}}), 22, "large test value of size 'n'");
    requireRefused(loadEdited("large_low", {{size, size + " large=\"0\""}}), 22, "below its minimum");
}

// The data-parallel set's [gpu] test past 2^31 bytes (tests/gpu/test_gpu_templates.cpp) runs each
// template's large problem: it must hold a buffer whose byte offsets outgrow 32 bits, at sizes
// the kernel's argument types can hold.
TEST_CASE("each data-parallel template's large test problem has a buffer past 2^31 bytes", "[templates][reliability]") {
    const TemplateLibrary& lib = kx::test::shippedTemplates();
    const Arch* arch = kx::test::shippedArches().findArch("sm_90");
    REQUIRE(arch);
    for (const char* id : {"map", "reduce", "scan", "filter", "histogram", "transpose", "stencil", "radix_sort", "join", "group_by"}) {
        CAPTURE(id);
        const auto t = lib.find(id);
        REQUIRE(t);
        const SizeMap sizes = t->largeTestSizes();
        REQUIRE_FALSE(sizes.empty());
        CHECK_NOTHROW(checkSizeTypes(*t, sizes));
        long long largest = 0;
        for (const ResolvedArg& a : t->resolveArgs(t->defaultConfig(), *arch, sizes))
            if (a.role == "in" || a.role == "out" || a.role == "inout") {
                const DtypeInfo* type = findDtypeOfCType(a.type);
                REQUIRE(type);
                largest = std::max(largest, a.count * static_cast<long long>(type->bytes));
            }
        CHECK(largest > (1LL << 31));
        CHECK(largest < (1LL << 32));  // past the limit, not far past it: the host checks every element
    }
    // Sizes without a large value keep their default.
    CHECK(lib.find("join")->largeTestSizes().at("nb") == lib.find("join")->defaultSizes().at("nb"));
    CHECK(lib.find("gemm")->largeTestSizes().empty());
}

TEST_CASE("a kernel source that is a device is refused without reading it", "[templates][reliability]") {
    requireRefused(loadEdited("dev_zero", {{"file=\"tiny.cu\"", "file=\"/dev/zero\""}}), 4, "absolute");
    requireRefused(loadEdited("dev_zero_rel", {{"file=\"tiny.cu\"", "file=\"../../../../../../../../dev/zero\""}}), 4, "outside");
}

TEST_CASE("a kernel source outside the template's folder is refused", "[templates][reliability]") {
    requireRefused(loadEdited("passwd", {{"file=\"tiny.cu\"", "file=\"../../../../etc/passwd\""}}), 4, "outside the template's folder");
    requireRefused(loadEdited("sibling", {{"file=\"tiny.cu\"", "file=\"../tiny/tiny.cu\""}}), 4, "outside the template's folder");
    // A link inside the folder that leads out of it is refused too.
    Edited linked = loadEdited("link", {{"file=\"tiny.cu\"", "file=\"escape.cu\""}});
    fs::create_symlink("/etc/passwd", linked.manifest.parent_path() / "escape.cu");
    linked.lib = TemplateLibrary::load(linked.manifest.parent_path().parent_path());
    requireRefused(linked, 4, "outside the template's folder");
}

TEST_CASE("a kernel source that is a folder or missing is refused and the others still load", "[templates][reliability]") {
    requireRefused(loadEdited("dot", {{"file=\"tiny.cu\"", "file=\".\""}}), 4, "not a regular file");
    requireRefused(loadEdited("subdir", {{"file=\"tiny.cu\"", "file=\"sub\""}}), 4, "does not exist");
}

TEST_CASE("a name pattern that could leave the output folder or is empty is refused", "[templates][reliability]") {
    const std::string pattern = "<name-pattern>tiny_{dtype}_b{BLOCK}_u{UNROLL}{FAST?}</name-pattern>";
    requireRefused(loadEdited("traversal", {{pattern, "<name-pattern>../../x/{BLOCK}</name-pattern>"}}), 5, "must start with a letter");
    requireRefused(loadEdited("slash", {{pattern, "<name-pattern>x/../../{BLOCK}</name-pattern>"}}), 5, "holds '/'");
    requireRefused(loadEdited("empty", {{pattern, "<name-pattern></name-pattern>"}}), 5, "empty");
    requireRefused(loadEdited("unknown", {{pattern, "<name-pattern>t_{NOPE}</name-pattern>"}}), 5, "{NOPE}, which is not a parameter");
    requireRefused(loadEdited("unknown_optional", {{pattern, "<name-pattern>t_{NOPE?}</name-pattern>"}}), 5, "{NOPE}, which is not a parameter");
    requireRefused(loadEdited("prefix_slash", {{pattern, "<name-pattern>t_{BLOCK?/b}</name-pattern>"}}), 5, "prefix with characters other than");
    requireRefused(loadEdited("unclosed", {{pattern, "<name-pattern>t_{BLOCK</name-pattern>"}}), 5, "unclosed");
    // A choice whose name would put a '/' into the file name.
    requireRefused(loadEdited("choice", {{pattern, "<name-pattern>t_{dtype}</name-pattern>"}, {"<choice name=\"f16\"", "<choice name=\"../f16\""}}),
                   5, "choice '../f16'");
    requireRefused(loadEdited("optional_choice", {{pattern, "<name-pattern>t{dtype?}</name-pattern>"}, {"<choice name=\"f16\"", "<choice name=\"../f16\""}}),
                   5, "choice '../f16'");
}

TEST_CASE("a launch that would be both prepared once and timed is refused", "[templates][reliability]") {
    const std::string launch = "<launch grid-x=\"ceil_div(n, ITEMS)\"";
    requireRefused(loadEdited("prepare_primary", {{launch, "<launch prepare=\"true\" primary=\"true\" grid-x=\"ceil_div(n, ITEMS)\""}}), 28,
                   "both primary and prepare");
}

TEST_CASE("negative parameter values and duplicate choices or values are refused", "[templates][reliability]") {
    requireRefused(loadEdited("negative", {{"values=\"32,64,128,256,2048\"", "values=\"-32,64,128,256,2048\""}}), 11, "must not be negative");
    requireRefused(loadEdited("negative_range", {{"min=\"1\" max=\"8\"", "min=\"-2\" max=\"8\""}}), 12, "must not be negative");
    requireRefused(loadEdited("dup_value", {{"values=\"32,64,128,256,2048\"", "values=\"32,64,64,256,2048\""}}), 11, "value 64 twice");
    requireRefused(loadEdited("dup_choice", {{"<choice name=\"f16\"", "<choice name=\"f32\""}}), 9, "choice 'f32' twice");
}

TEST_CASE("a default that makes a derived value divide by zero is refused at load", "[templates][reliability]") {
    // UNROLL defaults to 2: ITEMS becomes infinite, which would print as "inf threads".
    requireRefused(loadEdited("derived_inf", {{"expr=\"BLOCK*UNROLL\"", "expr=\"BLOCK*UNROLL/(UNROLL-2)\""}}), 15, "derived 'ITEMS'");
    requireRefused(loadEdited("derived_nan", {{"expr=\"BLOCK*UNROLL\"", "expr=\"0/(UNROLL-2)\""}}), 15, "not a number");
}

TEST_CASE("a zero value allowed by the constraints that divides by zero is refused at load", "[templates][reliability]") {
    // UNROLL may be 0: ITEMS % 64 holds (0), is_pow2(0) does not, so the constraints refuse it.
    const Edited guarded = loadEdited("zero_guarded", {{"min=\"1\" max=\"8\"", "min=\"0\" max=\"8\""}});
    CHECK(guarded.lib.errors().empty());
    // Without the is_pow2 rule, UNROLL=0 gives ITEMS=0 and a grid of ceil_div(n, 0).
    requireRefused(loadEdited("zero_grid", {{"min=\"1\" max=\"8\"", "min=\"0\" max=\"8\""}, {"expr=\"is_pow2(UNROLL)\"", "expr=\"1\""}}), 12,
                   "value 0 of 'UNROLL'");
    // A remainder by a parameter that may be 0 is reported as a division by zero, not as the rule.
    requireRefused(loadEdited("zero_modulo", {{"min=\"1\" max=\"8\"", "min=\"0\" max=\"8\""}, {"expr=\"ITEMS % 64 == 0\"", "expr=\"BLOCK % UNROLL == 0\""}}),
                   12, "remainder (%) by zero");
}

TEST_CASE("a constraint that takes a remainder by zero is reported as such", "[templates][reliability]") {
    requireRefused(loadEdited("modulo_zero", {{"expr=\"ITEMS % 64 == 0\"", "expr=\"ITEMS % 0 == 0\""}}), 19, "remainder (%) by zero");
    // For a config that only some values reach, validation says what went wrong, not the rule's message.
    const Edited e = loadEdited("modulo_three", {{"expr=\"ITEMS % 64 == 0\"", "expr=\"ITEMS % (UNROLL-4) == 0\""}});
    REQUIRE(e.lib.errors().empty());
    const auto tmpl = e.lib.find("broken");
    const Config c = tmpl->withValues(tmpl->defaultConfig(), {{"UNROLL", "4"}});
    const auto violations = tmpl->validate(c, kx::test::fakeArch());
    REQUIRE(violations.size() == 1);  // is_pow2(4) holds; the remainder by zero does not
    bool sawRemainder = false;
    for (const Violation& v : violations) {
        CHECK_THAT(v.message, !Catch::Contains("must be a multiple of 64"));
        sawRemainder = sawRemainder || v.message.find("remainder (%) by zero") != std::string::npos;
    }
    CHECK(sawRemainder);
}

TEST_CASE("a constraint message naming an unknown variable is refused at load", "[templates][reliability]") {
    requireRefused(loadEdited("message", {{"message=\"UNROLL ({UNROLL})", "message=\"UNROLL ({UNROLLS})"}}), 18, "{UNROLLS}");
}

TEST_CASE("strict evaluation reports divisions by zero", "[templates][reliability]") {
    const VariableMap vars = {{"a", 6}, {"z", 0}};
    CHECK(evaluateExpressionStrict("a % 4", vars) == 2);
    CHECK_THROWS_WITH(evaluateExpressionStrict("a % z", vars), Catch::Contains("remainder (%) by zero"));
    CHECK_THROWS_WITH(evaluateExpressionStrict("ceil_div(a, z)", vars), Catch::Contains("ceil_div by zero"));
    CHECK_THROWS_WITH(evaluateExpressionStrict("a / z", vars), Catch::Contains("infinite"));
    // Outside strict mode the old behaviour stays: a comparison with NaN is false.
    CHECK(evaluateExpression("a % z == 0", vars) == 0);
}

TEST_CASE("an expression evaluated again sees the new values, other variables and a failure before it", "[templates][expression]") {
    // Parsed expressions are kept per thread: each evaluation must still use its own values.
    CHECK(evaluateExpression("a * b", {{"a", 2}, {"b", 3}}) == 6);
    CHECK(evaluateExpression("a * b", {{"a", 5}, {"b", 7}}) == 35);
    CHECK(evaluateExpression("a * b", {{"a", 5}, {"b", 7}, {"c", 100}}) == 35);
    CHECK(evaluateExpression("a * b + c", {{"a", 1}, {"b", 1}, {"c", 100}}) == 101);
    CHECK_THROWS_WITH(evaluateExpression("a * d", {{"a", 5}, {"b", 7}}), Catch::Contains("unknown name 'd'"));
    CHECK_THROWS_WITH(evaluateExpressionStrict("a % b", {{"a", 5}, {"b", 0}}), Catch::Contains("remainder (%) by zero"));
    CHECK(evaluateExpressionStrict("a % b", {{"a", 5}, {"b", 3}}) == 2);
    CHECK(evaluateExpression("a % b", {{"a", 9}, {"b", 5}}) == 4);
    // And from another thread, which keeps its own parsers.
    double other = 0;
    std::thread([&] { other = evaluateExpression("a * b", {{"a", 11}, {"b", 2}}); }).join();
    CHECK(other == 22);
    CHECK(evaluateExpression("a * b", {{"a", 3}, {"b", 3}}) == 9);
}

TEST_CASE("counts beyond a 64-bit integer are refused instead of overflowing", "[templates][reliability]") {
    const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "tests/engine/templates/data");
    const auto tmpl = lib.find("tiny");
    REQUIRE(tmpl);
    SizeMap sizes = tmpl->defaultSizes();
    sizes["n"] = 4'000'000'000'000'000'000LL;
    CHECK_NOTHROW(tmpl->resolveArgs(tmpl->defaultConfig(), kx::test::fakeArch(), sizes));
    // 1e293 elements: refused by name rather than cast (undefined behaviour).
    const Edited huge = loadEdited("huge", {{"count=\"n\"", "count=\"n*1e290\""}});
    REQUIRE(huge.lib.errors().empty());
    CHECK_THROWS_WITH(huge.lib.find("broken")->resolveArgs(huge.lib.find("broken")->defaultConfig(), kx::test::fakeArch(), huge.lib.find("broken")->defaultSizes()),
                      Catch::Contains("beyond any count"));
}

TEST_CASE("problem quantities are computed from the sizes, in order, and a bad one names its line", "[templates][quantity]") {
    const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    const auto conv = lib.find("conv");
    REQUIRE(conv);
    const Arch arch = manifestCheckArch(false);
    using Quantities = std::vector<std::pair<std::string, double>>;
    // ResNet-50's 3x3 layer at its default sizes: 56 x 56 out, GEMM 100352 x 64 x 576.
    CHECK(conv->quantities(conv->defaultConfig(), arch, conv->defaultSizes()) ==
          Quantities{{"Do", 1}, {"Ho", 56}, {"Wo", 56}, {"GEMM_M", 100352}, {"GEMM_N", 64}, {"GEMM_K", 576}});
    // bwd_weight's GEMM is K x (taps * C) x output pixels; stride 2 halves the output.
    const Config bwdWeight = conv->withValues(conv->defaultConfig(), {{"direction", "bwd_weight"}});
    const SizeMap strided = conv->withSizes({{"stride_h", "2"}, {"stride_w", "2"}});
    CHECK(conv->quantities(bwdWeight, arch, strided) ==
          Quantities{{"Do", 1}, {"Ho", 28}, {"Wo", 28}, {"GEMM_M", 64}, {"GEMM_N", 576}, {"GEMM_K", 32 * 28 * 28}});
    // Quantities are variables of the launch: one block row per 128 output pixels.
    CHECK(conv->launch(conv->defaultConfig(), arch, conv->defaultSizes()).grid[0] == 100352 / 128);
    // Without sizes (a config alone) there are no quantities to evaluate.
    CHECK_FALSE(conv->variables(conv->defaultConfig(), arch).count("GEMM_M"));

    // A quantity naming something unknown is refused at load, with its line.
    const std::string problemEnd = "</problem>";
    requireRefused(loadEdited("quantity", {{problemEnd, "<quantity name=\"Q\" expr=\"n * NOPE\"/></problem>"}}), 23, "NOPE");
}

// A parameter's `applies` (with `applies-help`, where it holds in words) says for which configs it
// has an effect; the editor dims it elsewhere. conv_wgmma's direction-bound parameters; a bad
// expression or a missing help is refused at load with its line.
TEST_CASE("a parameter that has no effect for a config is listed as inactive", "[templates][applies]") {
    const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    const auto conv = lib.find("conv_wgmma");
    REQUIRE(conv);
    const Arch arch = manifestCheckArch(false);
    auto inactive = [&](const std::map<std::string, std::string>& values) {
        std::vector<std::string> names;
        for (const ParamSpec* p : conv->inactiveParams(conv->withValues(conv->defaultConfig(), values), arch)) names.push_back(p->name);
        return names;
    };
    using Names = std::vector<std::string>;
    CHECK(inactive({}) == Names{"SPLITK", "HALO_FILTER", "DATA_FILTER", "MN_ATOM"});
    CHECK(inactive({{"direction", "bwd_weight"}}) == Names{"STORE", "GATHER", "HALO_FILTER", "DATA_FILTER"});
    CHECK(inactive({{"direction", "bwd_data"}}) == Names{"SPLITK", "FOLD", "HALO_FILTER", "MN_ATOM"});
    CHECK(inactive({{"direction", "bwd_data"}, {"GATHER", "halo"}}) == Names{"SPLITK", "FOLD", "DATA_FILTER", "MN_ATOM"});
    for (const ParamSpec& p : conv->manifest().params)
        if (p.name == "SPLITK") CHECK(p.appliesHelp == "bwd_weight only");
    const auto mmaConv = lib.find("conv");
    REQUIRE(mmaConv);
    // conv splits K in every direction, so none of its parameters is bound to one.
    for (const std::string direction : {"fwd", "bwd_data", "bwd_weight"})
        CHECK(mmaConv->inactiveParams(mmaConv->withValues(mmaConv->defaultConfig(), {{"direction", direction}}), arch).empty());
    // A template without `applies` has no inactive parameter.
    const auto gemm = lib.find("gemm");
    REQUIRE(gemm);
    CHECK(gemm->inactiveParams(gemm->defaultConfig(), arch).empty());

    const std::string unroll = "<param name=\"UNROLL\" type=\"int\"";
    requireRefused(loadEdited("applies_name", {{unroll, unroll + " applies=\"NOPE &gt; 1\" applies-help=\"never\""}}), 12, "NOPE");
    requireRefused(loadEdited("applies_help", {{unroll, unroll + " applies=\"BLOCK &gt; 32\""}}), 12, "applies-help");
}
