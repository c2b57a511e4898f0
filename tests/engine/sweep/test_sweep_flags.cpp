// Compiler flags in sweeps: varied like parameters (--vary maxrregcount=...), named by
// preselected sets and config lists, and kept by every point in JSON, CSV and a session
// (points, presets, merges).
#include "sweep_test_support.hpp"

#include "store/session_store.hpp"
#include "sweep/preselected.hpp"
#include "sweep/slurm.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep_record.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace kx::engine;
using kx::test::errorOf;
using kx::test::gemmMma;

namespace {

CompileFlags flags(const std::string& text) { return parseCompileFlags(text); }

// A finished point of gemm_mma with these parameter values and flags (pruned: nothing to compile).
SweepPoint point(const std::map<std::string, std::string>& values, const std::string& flagText) {
    const Template& t = gemmMma();
    SweepPoint p;
    p.config = t.withValues(t.defaultConfig(), values);
    p.config.flags = flags(flagText);
    p.name = t.configName(p.config);
    p.status = PointStatus::Pruned;
    p.reason = "test";
    return p;
}

}  // namespace

TEST_CASE("a --vary of a compiler flag varies it like a parameter", "[sweep][space][flags]") {
    CHECK(compileFlagKey("fast-math") == "fast_math");
    CHECK(compileFlagKey("BM").empty());
    CHECK(allowedFlagValues("ptxas-opt") == std::vector<std::string>{"0", "1", "2", "3"});
    CHECK_THAT(errorOf([] { allowedFlagValues("turbo"); }), Catch::Contains("'turbo' is not a compiler flag"));
    CHECK(flags("maxrregcount=64,fast_math").value("maxrregcount") == "64");
    CHECK(flags("maxrregcount=64,fast_math").value("fast-math") == "true");

    const Template& t = gemmMma();
    const SweepAxis regs = parseVary(t, "maxrregcount=0,64,128");
    CHECK(regs.flag);
    CHECK(regs.param == "maxrregcount");
    CHECK(regs.values == std::vector<std::string>{"0", "64", "128"});
    CHECK(parseVary(t, "fast_math").values == std::vector<std::string>{"false", "true"});
    CHECK(parseVary(t, "ptxas_opt").values == std::vector<std::string>{"0", "1", "2", "3"});
    CHECK(parseVary(t, "ptxas_opt=1..2").values == std::vector<std::string>{"1", "2"});
    CHECK(parseVary(t, "maxrregcount=0..18").values == std::vector<std::string>{"0", "16", "17", "18"});
    CHECK(parseVary(t, "maxrregcount").values.size() == 241);  // 0 (no cap) and 16..255
    const SweepAxis dashed = parseVary(t, "extra-vectorization=on,off,1");
    CHECK(dashed.param == "extra_vectorization");
    CHECK(dashed.values == std::vector<std::string>{"true", "false"});
    CHECK_FALSE(parseVary(t, "BM=64").flag);

    CHECK_THAT(errorOf([&] { parseVary(t, "maxrregcount=8"); }), Catch::Contains("maxrregcount=8 is not allowed"));
    CHECK_THAT(errorOf([&] { parseVary(t, "maxrregcount=1..8"); }), Catch::Contains("no allowed value lies in 1..8"));
    CHECK_THAT(errorOf([&] { parseVary(t, "fast_math=0..1"); }), Catch::Contains("needs an int parameter"));
    CHECK_THAT(errorOf([&] { parseVary(t, "fast_math=maybe"); }), Catch::Contains("fast_math must be true or false"));
    CHECK_THAT(errorOf([&] { parseVary(t, "XX=1"); }),
               Catch::Contains("'XX': not a parameter of gemm_mma") && Catch::Contains("compiler flags: maxrregcount, fast_math"));
    CHECK_THAT(errorOf([&] { makeSpace(t, {t.defaultConfig()}, {"maxrregcount=32", "maxrregcount=64"}); }), Catch::Contains("given twice"));
}

TEST_CASE("a space's configs keep the base's flags and take each varied flag", "[sweep][space][flags]") {
    const Template& t = gemmMma();
    Config base = t.defaultConfig();
    base.flags = flags("fast_math,maxrregcount=96");
    const SweepSpace space = makeSpace(t, {base}, {"BM=64,128", "maxrregcount=0,64"});
    CHECK(space.size() == 4);
    const std::vector<Config> configs = spaceConfigs(space);
    REQUIRE(configs.size() == 4);
    std::set<std::string> names, canonical;
    for (const Config& c : configs) {
        CHECK(c.flags.fastMath);
        names.insert(t.configName(c));
        canonical.insert(c.canonical());
    }
    CHECK(configs[0].flags.maxRegisters == 0);
    CHECK(configs[1].flags.maxRegisters == 64);
    CHECK(configs[1].at("BM") == "64");
    CHECK(canonical.size() == 4);
    CHECK(names.size() == 4);
    CHECK(names.count(t.configName(configs[1])) == 1);
    CHECK_THAT(t.configName(configs[1]), Catch::EndsWith("_r64_fm"));
    CHECK_THAT(configs[1].canonical(), Catch::EndsWith("|maxrregcount=64,fast_math=true"));
}

TEST_CASE("preselected configs may name compiler flags", "[sweep][preselected][flags]") {
    const Template& t = gemmMma();
    const kx::test::ScratchFolder dir("preselected_flags");
    const fs::path file = dir.path / "preselected.xml";
    std::ofstream(file) << "<preselected template=\"gemm_mma\">\n  <set name=\"capped\" arches=\"sm_90\">\n"
                           "    <config BM=\"64\" flags=\"maxrregcount=128,fast_math\"/>\n    <config BM=\"32\"/>\n"
                           "  </set>\n</preselected>\n";
    const auto sets = loadPreselected(t, file);
    REQUIRE(sets.size() == 1);
    CHECK(sets[0].configs[0].flags == "maxrregcount=128,fast_math");
    CHECK(sets[0].configs[1].flags.empty());

    // Over a base with flags: those a config names replace the base's, the others stay.
    Config base = t.defaultConfig();
    base.flags = flags("ptxas_opt=1,maxrregcount=32");
    const std::vector<Config> configs = preselectedConfigs(sets[0], base);
    REQUIRE(configs.size() == 2);
    CHECK(configs[0].flags == flags("maxrregcount=128,fast_math,ptxas_opt=1"));
    CHECK(configs[0].at("BM") == "64");
    CHECK(configs[1].flags == base.flags);

    // The autotune winner's line for the file carries its flags, and reads back.
    const std::string line = preselectedConfigXml(t, configs[0]);
    CHECK_THAT(line, Catch::Contains("BM=\"64\"") && Catch::Contains("flags=\"maxrregcount=128,fast_math=true,ptxas_opt=1\""));
    std::ofstream(file, std::ios::trunc) << "<preselected template=\"gemm_mma\">\n  <set name=\"won\" arches=\"any\">\n    " << line
                                         << "\n  </set>\n</preselected>\n";
    CHECK(preselectedConfigs(loadPreselected(t, file)[0], t.defaultConfig())[0] == configs[0]);
    CHECK(preselectedConfigXml(t, t.defaultConfig()) == "<config/>");

    std::ofstream(file, std::ios::trunc) << "<preselected template=\"gemm_mma\">\n  <set name=\"bad\" arches=\"any\">\n"
                                            "    <config flags=\"maxrregcount=8\"/>\n  </set>\n</preselected>\n";
    CHECK_THAT(errorOf([&] { loadPreselected(t, file); }), Catch::StartsWith(file.string() + ":3: maxrregcount=8 is not allowed"));
    std::ofstream(file, std::ios::trunc) << "<preselected template=\"gemm_mma\">\n  <set name=\"bad\" arches=\"any\">\n"
                                            "    <config flags=\"turbo\"/>\n  </set>\n</preselected>\n";
    CHECK_THAT(errorOf([&] { loadPreselected(t, file); }), Catch::StartsWith(file.string() + ":3: 'turbo' is not a compiler flag"));
}

TEST_CASE("config lists carry flags after a '|'", "[sweep][configs][flags]") {
    const Template& t = gemmMma();
    const kx::test::ScratchFolder dir("config_list_flags");
    Config a = t.withValues(t.defaultConfig(), {{"BM", "64"}});
    a.flags = flags("maxrregcount=64,fast_math");
    CHECK_THAT(configLine(a), Catch::EndsWith("|maxrregcount=64,fast_math=true"));
    CHECK(configLine(t.defaultConfig()).find('|') == std::string::npos);

    const fs::path list = dir.path / "list.txt";
    std::ofstream(list) << configLine(a) << "\nBN=128 | ptxas_opt=2, fast_math=off\nBN=64\n";
    Config base = t.defaultConfig();
    base.flags = flags("fast_math");
    const auto configs = readConfigList(t, base, list);
    REQUIRE(configs.size() == 3);
    CHECK(configs[0] == a);
    CHECK(configs[1].flags == flags("ptxas_opt=2"));  // over the base's: fast_math turned off
    CHECK(configs[1].at("BN") == "128");
    CHECK(configs[2].flags == base.flags);

    const fs::path bad = dir.path / "bad.txt";
    std::ofstream(bad) << "BM=64\nBM=128|maxrregcount=300\n";
    CHECK_THAT(errorOf([&] { readConfigList(t, base, bad); }), Catch::StartsWith(bad.string() + ":2: maxrregcount=300 is not allowed"));
}

TEST_CASE("sweep points keep their flags in JSON, CSV and a session", "[sweep][record][flags]") {
    const Template& t = gemmMma();
    const SweepPoint plain = point({{"BM", "64"}}, ""), capped = point({{"BM", "64"}}, "maxrregcount=64"),
                     fast = point({{"BM", "128"}}, "maxrregcount=64,fast_math");

    const nlohmann::json json = sweepPointJson(fast);
    CHECK(json["flags"] == "maxrregcount=64,fast_math=true");
    CHECK(sweepPointJson(plain)["flags"] == "");
    CHECK(sweepPointFromJson(json, "gemm_mma").config == fast.config);

    // CSV: a column per flag some point sets, each point's value in it.
    const std::string csv = sweepCsv(t, {plain, capped, fast});
    const std::string header = csv.substr(0, csv.find('\n'));
    CHECK_THAT(header, Catch::Contains(",maxrregcount,fast_math,name,"));
    CHECK_THAT(header, !Catch::Contains("ptxas_opt"));
    CHECK_THAT(csv, Catch::Contains(",64,true," + fast.name + ","));
    CHECK_THAT(csv, Catch::Contains(",0,false," + plain.name + ","));
    CHECK(sweepCsv(t, {plain}).find("maxrregcount") == std::string::npos);

    // A session: the points (which differ only by their flags), read back and merged.
    const kx::test::ScratchFolder dir("record_flags");
    const fs::path file = dir.path / "flags.kxs";
    std::int64_t sweepId = 0;
    {
        SessionStore store = SessionStore::create(file);
        StoredSweep s;
        s.uid = "flags";
        s.name = "flags";
        s.templateId = "gemm_mma";
        s.arch = "sm_90";
        sweepId = store.findOrAddSweep(s);
        for (const SweepPoint& p : {plain, capped, fast}) recordSweepPoint(store, sweepId, "sm_90", p);
        store.setPreset("capped", "sm_90", fast.config, "");
    }
    const SessionStore store = SessionStore::open(file);
    const std::vector<StoredSweepPoint> stored = store.sweepPoints(sweepId);
    REQUIRE(stored.size() == 3);
    CHECK(stored[0].config == plain.config);
    CHECK(stored[1].config == capped.config);
    CHECK(stored[2].config == fast.config);
    const std::vector<SweepPoint> points = storedSweepPoints(store, sweepId, "gemm_mma");
    REQUIRE(points.size() == 3);
    CHECK(points[2].config == fast.config);
    CHECK(points[2].name == fast.name);
    CHECK(store.findPreset("capped")->config == fast.config);

    SessionStore merged = SessionStore::create(dir.path / "merged.kxs");
    merged.mergeFrom(store);
    merged.mergeFrom(store);  // again: nothing new
    const std::vector<StoredSweepPoint> mergedPoints = merged.sweepPoints(merged.sweeps().front().id);
    REQUIRE(mergedPoints.size() == 3);
    CHECK(mergedPoints[1].config == capped.config);
    CHECK(merged.findPreset("capped")->config == fast.config);
}
