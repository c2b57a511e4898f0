// A runner that cannot start is reported before a run's inputs are made: at large sizes making
// them takes seconds, which the user would wait for only to read that no runner is there.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kx::engine;
using kx::test::sourceDir;

TEST_CASE("a runner that cannot start is said before the inputs are made", "[run]") {
    TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(sourceDir());
    auto t = library.find("map");
    REQUIRE(t);
    CompileResult compiled;
    compiled.ok = true;
    compiled.cubin = "not a real module";
    std::vector<std::string> stages;
    RunOptions options;
    options.onStage = [&](const std::string& text) { stages.push_back(text); };
    RunnerClient runner("/nonexistent/kx-runner");
    const RunReport r = runVariant(runner, *t, t->defaultConfig(), *arches.findArch("sm_90"), t->defaultSizes(), compiled, options);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("cannot start the GPU runner '/nonexistent/kx-runner'"));
    CHECK(std::find(stages.begin(), stages.end(), "preparing inputs") == stages.end());

    // The same client says so again on the next run, and a request says the same.
    std::string why;
    CHECK_FALSE(runner.ensureStarted(&why));
    CHECK_THAT(why, Catch::Contains("cannot start"));
    CHECK(runner.request({{"cmd", "devices"}}, 5).value("fatal", false));
}
