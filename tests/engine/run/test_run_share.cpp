// The runs of a sweep share inputs and baseline results: checked against a stand-in runner
// that records what it is asked.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "run/run_share.hpp"
#include "run/variant_run.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

struct FakeRun {
    TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(sourceDir());
    std::filesystem::path log = std::filesystem::temp_directory_path() / ("kx-fake-runner-" + std::to_string(::getpid()) + ".log");
    FakeRun() {
        std::filesystem::remove(log);
        ::setenv("KX_FAKE_RUNNER_LOG", log.c_str(), 1);
    }
    ~FakeRun() {
        ::unsetenv("KX_FAKE_RUNNER_LOG");
        std::filesystem::remove(log);
    }
    RunReport run(RunnerClient& runner, const std::string& block, const RunOptions& options) {
        auto t = library.find("reduce");
        REQUIRE(t);
        const Config config = t->withValues(t->defaultConfig(), {{"BLOCK", block}});
        CompileResult compiled;
        compiled.ok = true;
        compiled.cubin = "not a real module";
        SizeMap sizes = t->defaultSizes();
        sizes["n"] = 100000;
        return runVariant(runner, *t, config, *arches.findArch("sm_90"), sizes, compiled, options);
    }
    std::vector<nlohmann::json> requests() const {
        std::vector<nlohmann::json> out;
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);)
            if (auto j = nlohmann::json::parse(line); j.value("cmd", "") == "run") out.push_back(j);
        return out;
    }
};

std::string inputFile(const nlohmann::json& request) {
    for (const auto& a : request.at("args"))
        if (a.at("role") == "in") return a.at("file");
    return {};
}

}  // namespace

TEST_CASE("runs sharing a RunShare generate the inputs and time the baselines once", "[run][share]") {
    FakeRun fake;
    RunnerClient runner(KX_FAKE_RUNNER);
    RunOptions options;
    options.share = std::make_shared<RunShare>();
    const RunReport first = fake.run(runner, "256", options);
    const RunReport second = fake.run(runner, "128", options);
    INFO(first.error << " | " << second.error);
    REQUIRE(first.ok);
    REQUIRE(second.ok);
    CHECK(first.variant != second.variant);

    const std::vector<nlohmann::json> requests = fake.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].at("baselines").size() == 2);  // cub_reduce and copy
    CHECK_FALSE(requests[1].contains("baselines"));   // both taken from the share
    CHECK(inputFile(requests[0]) == inputFile(requests[1]));
    CHECK(options.share->inputsGenerated() == 1);
    CHECK(options.share->baselinesTimed() == 2);

    // The second report quotes the same baselines, in the manifest's order.
    REQUIRE(second.baselines.size() == first.baselines.size());
    for (size_t b = 0; b < first.baselines.size(); ++b) {
        CHECK(second.baselines[b].id == first.baselines[b].id);
        CHECK(second.baselines[b].medianMs == first.baselines[b].medianMs);
    }
    CHECK(second.baselines[0].id == "cub_reduce");
    // The shared baseline output reached the check: the zeros the stand-in wrote are compared.
    CHECK(second.correctness.baselineCompared == first.correctness.baselineCompared);
}

TEST_CASE("runs without a share each generate inputs and time baselines", "[run][share]") {
    FakeRun fake;
    RunnerClient runner(KX_FAKE_RUNNER);
    REQUIRE(fake.run(runner, "256", RunOptions{}).ok);
    REQUIRE(fake.run(runner, "128", RunOptions{}).ok);
    const std::vector<nlohmann::json> requests = fake.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[1].at("baselines").size() == 2);
    CHECK(inputFile(requests[0]) != inputFile(requests[1]));
}
