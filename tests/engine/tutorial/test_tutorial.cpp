// Tutorials as data: the prose subset, the file format and its errors, the step targets against
// the shipped templates, and checkpoint verdicts on a plain state.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"
#include "tutorial/checkpoint.hpp"
#include "tutorial/tutorial.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cctype>

#include <fstream>
#include <utility>
#include <unistd.h>

using namespace kx::engine;
using kx::test::sourceDir;
namespace fs = std::filesystem;

namespace {

// The editor on a compiled map for sm_90, in the config a step's actions set up.
TutorialState compiledMapOnSm90(const StepTarget& target) {
    TutorialState s;
    s.templateId = "map";
    s.arch = "sm_90";
    s.config = target.config;
    s.compiled = true;
    return s;
}

const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
const TemplateLibrary& templates() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}

// tutorials/<id>/tutorial.xml in a scratch folder.
struct ScratchTutorial {
    fs::path root;
    fs::path file;
    explicit ScratchTutorial(const std::string& xml, const std::string& id = "demo") {
        root = fs::temp_directory_path() / ("kx-tutorial-test-" + std::to_string(::getpid()));
        fs::create_directories(root / id);
        file = root / id / "tutorial.xml";
        std::ofstream(file) << xml;
    }
    ~ScratchTutorial() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
};

std::string errorOf(const std::string& xml) {
    ScratchTutorial t(xml);
    try {
        parseTutorial(t.file);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

const char* kSmall = R"(<tutorial id="demo" title="Demo">
  <step id="a" title="A">
    <prose>Hello</prose>
    <action label="Show me"><select template="map" arch="sm_90"/><set values="VEC=1"/></action>
    <checkpoint metric="config" param="VEC" equals="1"/>
    <checkpoint metric="registers" max="64"/>
    <checkpoint metric="run-passed"/>
    <recorded device="NVIDIA H100 80GB HBM3" date="2026-11-25" source="bench/results/x.md" gbps="3000" pct-copy="99"/>
  </step>
  <step id="b" title="B">
    <action label="Show me"><set values="VEC=4"/></action>
    <checkpoint metric="speedup" over="a" min="1.5"/>
    <checkpoint metric="mix-contains" text="ld.global.nc.v4"/>
  </step>
</tutorial>)";

}  // namespace

TEST_CASE("prose: headings, paragraphs, lists, code, inline styles", "[tutorial][prose]") {
    const auto blocks = parseProse(R"(
        ## A heading

        Some *emphasis*, **strong**, `code` and a [link](https://example.com)
        that continues here.

        - first item
        - second item
        1. numbered
        ```cuda
        int i = blockIdx.x;
          indented();
        ```
    )", sourceDir(), "x.xml", 10);
    REQUIRE(blocks.size() == 6);
    CHECK(blocks[0].kind == ProseBlock::Kind::Heading);
    CHECK(blocks[0].level == 2);
    CHECK(blocks[0].spans.at(0).text == "A heading");
    REQUIRE(blocks[1].kind == ProseBlock::Kind::Paragraph);
    const auto& s = blocks[1].spans;
    REQUIRE(s.size() == 9);
    CHECK(s[1].style == ProseSpan::Style::Emphasis);
    CHECK(s[3].style == ProseSpan::Style::Strong);
    CHECK(s[5].style == ProseSpan::Style::Code);
    CHECK(s[5].text == "code");
    CHECK(s[7].style == ProseSpan::Style::Link);
    CHECK(s[7].target == "https://example.com");
    CHECK(s[8].text == " that continues here.");
    CHECK(blocks[2].kind == ProseBlock::Kind::Bullet);
    CHECK(blocks[3].kind == ProseBlock::Kind::Bullet);
    CHECK(blocks[4].kind == ProseBlock::Kind::Numbered);
    CHECK(blocks[4].level == 1);
    CHECK(blocks[5].kind == ProseBlock::Kind::Code);
    CHECK(blocks[5].language == "cuda");
    CHECK(blocks[5].code == "int i = blockIdx.x;\n  indented();");
}

TEST_CASE("prose: underscores inside names are not emphasis, and unclosed markers are text", "[tutorial][prose]") {
    const auto spans = parseInline("BLOCK_M and SMEM_BYTES, a *dangling star");
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].style == ProseSpan::Style::Plain);
    CHECK(spans[0].text == "BLOCK_M and SMEM_BYTES, a *dangling star");
}

TEST_CASE("prose: errors name the file and line", "[tutorial][prose]") {
    CHECK_THROWS_WITH(parseProse("text\n\n```\nnever closed\n", sourceDir(), "t.xml", 7), "t.xml:9: code block opened with ``` is never closed");
    CHECK_THROWS_WITH(parseProse("a\n![missing](nope.png)\n", sourceDir(), "t.xml", 3), Catch::Contains("t.xml:4: image 'nope.png' is not in"));
    CHECK_THROWS_WITH(parseProse("![up](../x.png)\n", sourceDir(), "t.xml", 1), Catch::Contains("t.xml:1: image '../x.png' must be a file in the tutorial's folder"));
}

TEST_CASE("tutorial files parse into steps, actions, checkpoints and recorded runs", "[tutorial]") {
    ScratchTutorial t(kSmall);
    const Tutorial tut = parseTutorial(t.file);
    CHECK(tut.id == "demo");
    REQUIRE(tut.steps.size() == 2);
    const TutorialStep& a = tut.steps[0];
    REQUIRE(a.actions.size() == 1);
    REQUIRE(a.actions[0].ops.size() == 2);
    CHECK(a.actions[0].ops[0].kind == ActionOp::Kind::Select);
    CHECK(a.actions[0].ops[1].values.at("VEC") == "1");
    REQUIRE(a.checkpoints.size() == 3);
    CHECK(a.checkpoints[1].metric == Metric::Registers);
    CHECK(*a.checkpoints[1].max == 64);
    CHECK(a.checkpoints[1].label == "at most 64 registers per thread");
    CHECK(a.checkpoints[1].line == 6);
    REQUIRE(a.recorded);
    CHECK(a.recorded->summary() == "3000 GB/s, 99% of copy bandwidth");
    CHECK(tut.stepIndex("b") == 1);
    CHECK(tut.stepIndex("zz") == -1);
}

TEST_CASE("malformed tutorials name the file and line", "[tutorial]") {
    // XML that does not parse: TinyXML2's line of the element left open.
    const std::string mismatched = errorOf("<tutorial id=\"demo\" title=\"x\">\n<step id=\"a\" title=\"A\">\n</tutorial>");
    INFO(mismatched);
    CHECK(mismatched.find("demo/tutorial.xml:2: malformed XML: ") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A">
  <checkpoint metric="speed" min="2"/>
</step></tutorial>)")
              .find("demo/tutorial.xml:3: unknown metric 'speed' (template, arch, config") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A">
  <action label="go"><launch/></action>
</step></tutorial>)")
              .find("tutorial.xml:3: unknown action 'launch'") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><checkpoint metric="registers" mxa="3"/></step></tutorial>)")
              .find("tutorial.xml:2: <checkpoint> has an unknown attribute 'mxa'") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><checkpoint metric="registers"/></step></tutorial>)")
              .find("tutorial.xml:2: metric 'registers' needs max=") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A">
  <checkpoint metric="speedup" over="b" min="2"/></step>
<step id="b" title="B"/></tutorial>)")
              .find("tutorial.xml:3: speedup over 'b': no earlier step has that id") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="other" title="x"><step id="a" title="A"/></tutorial>)").find("must be the folder's name") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><action label="go"><open view="ptxx"/></action></step></tutorial>)")
              .find("tutorial.xml:2: unknown view 'ptxx'") != std::string::npos);
    // Found by fuzzing: an order beyond int's range was converted with undefined behaviour.
    CHECK(errorOf(R"(<tutorial id="demo" title="x" order="1.3e10"><step id="a" title="A"/></tutorial>)")
              .find("tutorial.xml:1: <tutorial> order=\"13000000000\" must be a whole number") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x" order="2.5"><step id="a" title="A"/></tutorial>)").find("must be a whole number") !=
          std::string::npos);
}

TEST_CASE("the library skips a broken tutorial and keeps the others", "[tutorial]") {
    ScratchTutorial good(kSmall);
    fs::create_directories(good.root / "broken");
    std::ofstream(good.root / "broken" / "tutorial.xml") << "<tutorial id=\"broken\" title=\"b\"><step id=\"x\" title=\"y\"><bogus/></step></tutorial>";
    const TutorialLibrary lib = TutorialLibrary::load(good.root);
    REQUIRE(lib.tutorials().size() == 1);
    CHECK(lib.find("demo"));
    REQUIRE(lib.errors().size() == 1);
    CHECK(lib.errors()[0].message.find("broken/tutorial.xml:1: unknown element <bogus>") != std::string::npos);
}

TEST_CASE("step targets follow the actions and reject what the templates refuse", "[tutorial]") {
    ScratchTutorial t(kSmall);
    const auto targets = stepTargets(parseTutorial(t.file), templates(), arches());
    REQUIRE(targets.size() == 2);
    CHECK(targets[0].templateId == "map");
    CHECK(targets[0].config.at("VEC") == "1");
    CHECK(targets[1].config.at("VEC") == "4");
    CHECK(targets[1].config.at("BLOCK") == "256");  // defaults filled in

    auto targetError = [](const std::string& actions) {
        ScratchTutorial bad("<tutorial id=\"demo\" title=\"x\">\n<step id=\"a\" title=\"A\">\n" + actions + "\n</step></tutorial>");
        try {
            stepTargets(parseTutorial(bad.file), templates(), arches());
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(targetError(R"(<action label="x"><select template="nope"/></action>)").find("tutorial.xml:3: unknown template 'nope'") != std::string::npos);
    CHECK(targetError(R"(<action label="x"><select template="map"/><set values="VEC=3"/></action>)").find("tutorial.xml:3:") != std::string::npos);
    CHECK(targetError(R"(<action label="x"><select template="map"/><set values="NOPE=3"/></action>)").find("NOPE") != std::string::npos);
    CHECK(targetError(R"(<action label="x"><set values="VEC=4"/></action>)").find("before any <select") != std::string::npos);
    // Problem sizes: the template's own, whole numbers, within their minimum.
    CHECK(targetError(R"(<action label="x"><select template="map"/><size values="n=1000"/></action>)").empty());
    CHECK(targetError(R"(<action label="x"><select template="map"/><size values="M=16"/></action>)")
              .find("tutorial.xml:3: 'M' is not a problem size of map (sizes: n)") != std::string::npos);
    CHECK(targetError(R"(<action label="x"><select template="map"/><size values="n=1e3"/></action>)").find("is not an integer") !=
          std::string::npos);
    CHECK(targetError(R"(<action label="x"><size values="n=4"/></action>)").find("sizes are set before any <select") != std::string::npos);
    // A config that breaks a constraint names it: 8 floats are 32 bytes, over the 16-byte load.
    CHECK(targetError(R"(<action label="x"><select template="map"/><set values="VEC=8"/></action>)").find("the widest load is 16 bytes") !=
          std::string::npos);
}

TEST_CASE("a flags action sets compiler flags, a select resets them, and runs are told apart by them", "[tutorial][checkpoint]") {
    ScratchTutorial t(R"(<tutorial id="demo" title="Demo">
  <step id="plain" title="Plain">
    <action label="Show me"><select template="map" arch="sm_90"/><set values="VEC=4"/></action>
    <checkpoint metric="run-passed"/>
  </step>
  <step id="capped" title="Capped">
    <action label="Show me"><flags values="maxrregcount=32,fast_math"/></action>
    <checkpoint metric="speedup" over="plain" min="1.1"/>
  </step>
  <step id="again" title="Again">
    <action label="Show me"><select template="map"/><set values="VEC=4"/></action>
  </step>
</tutorial>)");
    const Tutorial tut = parseTutorial(t.file);
    REQUIRE(tut.steps[1].actions[0].ops.size() == 1);
    CHECK(tut.steps[1].actions[0].ops[0].kind == ActionOp::Kind::Flags);
    CHECK(tut.steps[1].actions[0].ops[0].flags.maxRegisters == 32);
    const auto targets = stepTargets(tut, templates(), arches());
    REQUIRE(targets.size() == 3);
    CHECK(targets[0].flags.empty());
    CHECK(targets[1].flags == "maxrregcount=32,fast_math=true");
    CHECK(targets[1].config == targets[0].config);
    CHECK(targets[2].flags.empty());  // a select starts from the defaults, flags included

    // The same parameters with and without the cap are two kernels: the capped step's speed-up
    // is over the plain step's run, not over its own.
    TutorialState s = compiledMapOnSm90(targets[1]);
    s.flags = targets[1].flags;
    RunFacts capped;
    capped.templateId = "map";
    capped.config = targets[1].config;
    capped.flags = targets[1].flags;
    capped.ok = capped.passed = true;
    capped.gbps = 1200;
    s.runs.push_back(capped);
    CHECK(evaluateStep(tut, 1, targets, s)[0].status == CheckStatus::NeedsRun);
    RunFacts plain = capped;
    plain.flags.clear();
    plain.gbps = 1000;
    s.runs.insert(s.runs.begin(), plain);
    const auto v = evaluateStep(tut, 1, targets, s);
    CHECK(v[0].status == CheckStatus::Pass);
    CHECK(v[0].reason == "1.20x the GB/s of step 'plain' (at least 1.1)");
    // And the plain step's run-passed is judged on the plain run when the editor has no flags.
    s.flags.clear();
    s.runs.back().passed = false;  // the capped run fails its check: not the plain step's business
    CHECK(evaluateStep(tut, 0, targets, s)[0].status == CheckStatus::Pass);

    CHECK(errorOf(R"(<tutorial id="demo" title="x"><step id="a" title="A">
<action label="x"><select template="map"/><flags values="maxrregcount=8"/></action></step></tutorial>)")
              .find("tutorial.xml:2: maxrregcount=8 is not allowed") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x"><step id="a" title="A">
<action label="x"><flags values="warp_speed=9"/></action></step></tutorial>)")
              .find("tutorial.xml:2:") != std::string::npos);
    // Flags the arch cannot take are refused where the action is.
    ScratchTutorial amd(R"(<tutorial id="demo" title="x"><step id="a" title="A">
<action label="x"><select template="map" arch="gfx942"/><flags values="fast_math"/></action></step></tutorial>)");
    try {
        stepTargets(parseTutorial(amd.file), templates(), arches());
        FAIL("NVRTC flags on an AMD arch were accepted");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).find("tutorial.xml:2: the compiler flags fast_math=true are NVRTC's") != std::string::npos);
    }
}

TEST_CASE("ptx opcodes: instructions only, not names or directives", "[tutorial][checkpoint]") {
    const std::string ptx = R"(.visible .entry gemm_mma_f16(
    .param .u64 p
)
{
    .reg .b32 %r<9>;
    // mma in a comment
$L__BB0_1:
    ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r5];
    @%p1 bra $L__BB0_1;
    @!%p2 wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...};
    ret;
})";
    const auto ops = ptxOpcodes(ptx);
    CHECK(ops == std::vector<std::string>{"bra", "ld.shared.v4.u32", "ret", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"});
    CHECK(opcodesContain(ops, "ld.shared.v4"));
    CHECK(opcodesContain(ops, "mma"));
    CHECK(opcodesContain(ops, "wgmma"));
    CHECK_FALSE(opcodesContain(ops, "ld.global"));
    CHECK_FALSE(opcodesContain(ptxOpcodes(".visible .entry gemm_mma_f16()\n{\n  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1}, [%r2];\n}"), "mma"));
}

TEST_CASE("checkpoint verdicts: pass, fail with reasons, and runs that need a GPU", "[tutorial][checkpoint]") {
    ScratchTutorial t(kSmall);
    const Tutorial tut = parseTutorial(t.file);
    const auto targets = stepTargets(tut, templates(), arches());

    TutorialState s = compiledMapOnSm90(targets[0]);
    s.registers = 80;
    s.spillBytes = 0;
    auto v = evaluateStep(tut, 0, targets, s);
    REQUIRE(v.size() == 3);
    CHECK(v[0].status == CheckStatus::Pass);
    CHECK(v[0].reason == "VEC is 1");
    CHECK(v[1].status == CheckStatus::Fail);
    CHECK(v[1].reason == "80 registers per thread (at most 64)");
    // No run here: never a failure, and the recorded run is quoted as recorded.
    CHECK(v[2].status == CheckStatus::NeedsRun);
    CHECK(v[2].reason.find("this config has not run here") != std::string::npos);
    CHECK(v[2].reason.find("Recorded on NVIDIA H100 80GB HBM3 (2026-11-25), not run here: PASS") != std::string::npos);

    // Not compiled yet: the reason says why.
    s.compiled = false;
    s.compileNote = "compiling";
    CHECK(evaluateStep(tut, 0, targets, s)[1].reason == "not compiled: compiling");

    // A run of this config: judged on it.
    RunFacts run;
    run.templateId = "map";
    run.config = targets[0].config;
    run.ok = true;
    run.passed = false;
    run.verdict = "FAIL";
    run.gbps = 1000;
    s.runs.push_back(run);
    v = evaluateStep(tut, 0, targets, s);
    CHECK(v[2].status == CheckStatus::Fail);
    CHECK(v[2].reason == "the latest run's check: FAIL");

    // Step b: the speed-up over step a's run, and the PTX's instructions.
    s.config = targets[1].config;
    s.compiled = true;
    s.opcodes = {"ld.global.nc.v4.f32"};
    v = evaluateStep(tut, 1, targets, s);
    CHECK(v[0].status == CheckStatus::NeedsRun);  // b has not run
    CHECK(v[1].status == CheckStatus::Pass);
    RunFacts faster = run;
    faster.config = targets[1].config;
    faster.passed = true;
    faster.gbps = 1400;
    s.runs.push_back(faster);
    v = evaluateStep(tut, 1, targets, s);
    CHECK(v[0].status == CheckStatus::Fail);
    CHECK(v[0].reason == "1.40x the GB/s of step 'a' (at least 1.5)");
    s.runs.back().gbps = 1600;
    CHECK(evaluateStep(tut, 1, targets, s)[0].status == CheckStatus::Pass);
}

TEST_CASE("run facts: percentages of the copy and of the first baseline", "[tutorial][checkpoint]") {
    RunReport r;
    r.ok = true;
    r.correctness.passed = true;
    r.tflops = 0.5;
    BaselineReport copy;
    copy.id = "copy";
    copy.name = "device copy";
    copy.medianMs = 1;
    copy.speedup = 0.9;
    r.baselines.push_back(copy);
    const RunFacts f = runFacts(r, "map", {});
    CHECK(f.passed);
    CHECK(f.gflops == Approx(500));
    CHECK(*f.pctCopy == Approx(90));
    CHECK(*f.pctBaseline == Approx(90));
    CHECK(f.baselineName == "device copy");
}

// A template with several baselines (attention: cuDNN's, then the composed sequence) names the
// one a checkpoint is about; a run that did not time it fails the checkpoint, saying so.
TEST_CASE("pct-baseline of a named baseline", "[tutorial][checkpoint]") {
    ScratchTutorial t(R"(<tutorial id="demo" title="Demo">
  <step id="a" title="A">
    <action label="Show me"><select template="map" arch="sm_90"/></action>
    <checkpoint metric="pct-baseline" baseline="second" min="200"/>
    <checkpoint metric="pct-baseline" min="50"/>
  </step>
</tutorial>)");
    const Tutorial tut = parseTutorial(t.file);
    CHECK(tut.steps[0].checkpoints[0].label == "at least 200% of the speed of baseline second");
    const auto targets = stepTargets(tut, templates(), arches());

    RunReport r;
    r.ok = true;
    r.correctness.passed = true;
    for (const auto& [id, speedup] : {std::pair<const char*, double>{"first", 0.6}, std::pair<const char*, double>{"second", 2.5}}) {
        BaselineReport b;
        b.id = id;
        b.name = std::string("the ") + id;
        b.medianMs = 1;
        b.speedup = speedup;
        r.baselines.push_back(b);
    }
    TutorialState s = compiledMapOnSm90(targets[0]);
    s.runs.push_back(runFacts(r, "map", targets[0].config));
    auto v = evaluateStep(tut, 0, targets, s);
    REQUIRE(v.size() == 2);
    CHECK(v[0].status == CheckStatus::Pass);
    CHECK(v[0].reason == "250.0% of the second in the same run (at least 200)");
    CHECK(v[1].status == CheckStatus::Pass);
    CHECK(v[1].reason == "60.0% of the first in the same run (at least 50)");

    r.baselines.pop_back();
    s.runs = {runFacts(r, "map", targets[0].config)};
    v = evaluateStep(tut, 0, targets, s);
    CHECK(v[0].status == CheckStatus::Fail);
    CHECK(v[0].reason == "the run timed no second baseline");

    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><checkpoint metric="run-passed" baseline="x"/></step></tutorial>)")
              .find("tutorial.xml:2: baseline=\"...\" belongs to metric pct-baseline only") != std::string::npos);
}

// How close a run came to the roof: the run's own figure, judged against min; a run without it
// (a GPU no datasheet matches) fails saying why; without a run, the recorded figure is quoted.
TEST_CASE("pct-roof judges the run's share of the roof", "[tutorial][checkpoint]") {
    ScratchTutorial t(R"(<tutorial id="demo" title="Demo">
  <step id="a" title="A">
    <action label="Show me"><select template="map" arch="sm_90"/></action>
    <checkpoint metric="pct-roof" min="80"/>
    <recorded device="NVIDIA H100 80GB HBM3" date="2026-11-25" source="x.md" gbps="3023" pct-roof="90" roof="DRAM roof, NVIDIA H100 SXM5 80GB datasheet"/>
  </step>
</tutorial>)");
    const Tutorial tut = parseTutorial(t.file);
    CHECK(tut.steps[0].checkpoints[0].label == "at least 80% of the roofline at its intensity");
    const auto targets = stepTargets(tut, templates(), arches());
    TutorialState s = compiledMapOnSm90(targets[0]);
    auto v = evaluateStep(tut, 0, targets, s);
    CHECK(v[0].status == CheckStatus::NeedsRun);
    CHECK(v[0].reason.find("90% of the DRAM roof, NVIDIA H100 SXM5 80GB datasheet") != std::string::npos);

    RunReport r;
    r.ok = true;
    r.correctness.passed = true;
    r.pctOfRoof = 88.8;
    r.roofName = "DRAM roof, NVIDIA H200 SXM 141GB datasheet";
    s.runs.push_back(runFacts(r, "map", targets[0].config));
    v = evaluateStep(tut, 0, targets, s);
    CHECK(v[0].status == CheckStatus::Pass);
    CHECK(v[0].reason == "88.8% of the DRAM roof, NVIDIA H200 SXM 141GB datasheet (at least 80)");
    s.runs.back().pctRoof = 79.0;
    CHECK(evaluateStep(tut, 0, targets, s)[0].status == CheckStatus::Fail);
    s.runs.back().pctRoof.reset();
    v = evaluateStep(tut, 0, targets, s);
    CHECK(v[0].status == CheckStatus::Fail);
    CHECK(v[0].reason.find("no share of the roof") != std::string::npos);

    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><checkpoint metric="pct-roof"/></step></tutorial>)")
              .find("tutorial.xml:2: metric 'pct-roof' needs min=\"...\"") != std::string::npos);
    CHECK(errorOf(R"(<tutorial id="demo" title="x">
<step id="a" title="A"><recorded device="d" date="2026-01-01" source="x.md" pct-roof="50"/></step></tutorial>)")
              .find("tutorial.xml:2: <recorded> pct-roof needs roof=") != std::string::npos);
}

TEST_CASE("the shipped tutorials load, and every action fits the shipped templates", "[tutorial][shipped]") {
    const TutorialLibrary lib = TutorialLibrary::load(sourceDir() / "tutorials");
    for (const TutorialLoadError& e : lib.errors()) FAIL(e.message);
    REQUIRE_FALSE(lib.tutorials().empty());
    for (const auto& t : lib.tutorials()) {
        INFO(t->id);
        const auto targets = stepTargets(*t, templates(), arches());
        CHECK(targets.size() == t->steps.size());
        for (const TutorialStep& step : t->steps) {
            CHECK_FALSE(step.prose.empty());
            // A recorded run is a real one: its results file exists, in the folder of the device
            // it names (bench/results/nvidia-h100-80gb-hbm3/ for "NVIDIA H100 80GB HBM3").
            if (step.recorded) {
                std::string folder;
                for (const char c : step.recorded->device) folder += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                CHECK_THAT(step.recorded->source, Catch::StartsWith("bench/results/" + folder + "/"));
                CHECK(fs::exists(sourceDir() / step.recorded->source));
            }
        }
    }
}
