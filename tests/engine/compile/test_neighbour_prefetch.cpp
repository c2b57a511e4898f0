// Speculative compiles of the configs one edit away, and the Compiler joining a compile of the
// same request that is in flight instead of repeating it.
#include "arch/arch_database.hpp"
#include "compile/neighbour_prefetch.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"

#include "../test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

using namespace kx::engine;

namespace {

struct Library {
    ArchDatabase arches = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    TemplateLibrary templates = TemplateLibrary::load(kx::test::sourceDir() / "templates");
};

Library& library() {
    static Library l;
    return l;
}

}  // namespace

TEST_CASE("neighbours are the valid configs one parameter away, the edited parameter first", "[compile][prefetch]") {
    const auto gemm = library().templates.find("gemm");
    const Arch* sm90 = library().arches.findArch("sm_90");
    REQUIRE(gemm);
    REQUIRE(sm90);
    Config base = gemm->defaultConfig();  // BM=128, BN=128, ...

    const std::vector<Config> all = neighbourConfigs(*gemm, base, *sm90);
    REQUIRE_FALSE(all.empty());
    for (const Config& c : all) {
        INFO(c.canonical());
        CHECK(gemm->validate(c, *sm90).empty());
        int differing = 0;
        for (const auto& [k, v] : c.values) differing += base.values.at(k) != v;
        CHECK(differing == 1);
    }
    // Another dtype is a neighbour when valid; BM's neighbours are the adjacent allowed values only.
    auto has = [&](const std::vector<Config>& list, const std::string& key, const std::string& value) {
        for (const Config& c : list)
            if (c.values.at(key) == value) return true;
        return false;
    };
    CHECK(has(all, "dtype", "bf16"));
    // f32 with the default 8-wide vectors breaks a constraint: no candidate.
    CHECK_FALSE(gemm->validate(gemm->withValues(base, {{"dtype", "f32"}}), *sm90).empty());
    CHECK_FALSE(has(all, "dtype", "f32"));
    CHECK(has(all, "BM", "64"));
    CHECK_FALSE(has(all, "BM", "16"));

    // After BM went 64 -> 128, BM's next step up (256) comes first and the value just left last
    // among BM's neighbours.
    const std::vector<Config> afterEdit = neighbourConfigs(*gemm, base, *sm90, "BM", "64");
    REQUIRE(afterEdit.size() == all.size());
    std::vector<std::string> bmOrder;
    for (const Config& c : afterEdit)
        if (c.values.at("BM") != "128") bmOrder.push_back(c.values.at("BM"));
    REQUIRE_FALSE(bmOrder.empty());
    CHECK(afterEdit.front().values.at("BM") != "128");
    CHECK(bmOrder.back() == "64");
}

TEST_CASE("a prefetch round puts the neighbours' PTX in the cache, and an edit to one is a cache hit", "[compile][prefetch]") {
    const auto reduce = library().templates.find("reduce");
    const Arch* sm90 = library().arches.findArch("sm_90");
    REQUIRE(reduce);
    auto compiler = std::make_shared<Compiler>(std::filesystem::path());  // memory only
    NeighbourPrefetcher prefetcher(compiler);
    const Config base = reduce->defaultConfig();
    const std::vector<Config> neighbours = neighbourConfigs(*reduce, base, *sm90, "BLOCK", "128");
    REQUIRE(neighbours.size() >= 3);
    prefetcher.start(reduce, base, *sm90, "BLOCK", "128");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (!prefetcher.idle() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    REQUIRE(prefetcher.idle());
    CHECK(prefetcher.ptxCompiled() == static_cast<int>(neighbours.size()));
    for (const Config& c : neighbours) {
        const CompileResult r = compiler->compilePtx(prepareVariant(*reduce, c, *sm90).request);
        CHECK(r.ok);
        CHECK(r.fromCache);
        // The ptxas stage ran too.
        CHECK(compiler->compile(prepareVariant(*reduce, c, *sm90).request).fromCache);
    }
    // A stopped round compiles nothing more.
    prefetcher.start(reduce, neighbours.front(), *sm90);
    prefetcher.stop();
    const int after = prefetcher.ptxCompiled();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(prefetcher.ptxCompiled() <= after + 1);  // at most the one in flight
}

TEST_CASE("two threads asking for the same compile get one compile", "[compile][prefetch]") {
    const auto reduce = library().templates.find("reduce");
    const Arch* sm90 = library().arches.findArch("sm_90");
    Config c = reduce->defaultConfig();
    c = reduce->withValues(c, {{"ITEMS", "16"}});
    const CompileRequest request = prepareVariant(*reduce, c, *sm90).request;
    Compiler compiler{std::filesystem::path()};
    CompileResult a, b;
    std::thread first([&] { a = compiler.compilePtx(request); });
    std::thread second([&] { b = compiler.compilePtx(request); });
    first.join();
    second.join();
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    CHECK(a.ptx == b.ptx);
    CHECK(a.fromCache != b.fromCache);  // exactly one of them compiled
}
