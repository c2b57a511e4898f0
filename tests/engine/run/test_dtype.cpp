// The dtype table, its byte encodings, and the input fill rules.
#include "run/dtype.hpp"
#include "run/input_fill.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace kx::engine;

TEST_CASE("kernel argument types map to one dtype table", "[dtype]") {
    CHECK(dtypeOfCType("__half").name == "f16");
    CHECK(dtypeOfCType("__nv_bfloat16").bytes == 2);
    CHECK(dtypeOfCType("float").name == "f32");
    CHECK(dtypeOfCType("unsigned int").name == "u32");
    CHECK(dtypeOfCType("unsigned").name == "u32");
    CHECK(dtypeOfCType("long long").bytes == 8);
    CHECK(dtypeOfCType("uint64_t").name == "u64");
    CHECK(dtypeOfCType("double").unitRoundoff == std::ldexp(1.0, -53));
    CHECK(dtypeNamed("i32").kind == DtypeKind::Signed);
    CHECK_THROWS_AS(dtypeOfCType("float4"), InputError);
    CHECK_THROWS_AS(dtypeNamed("f8"), InputError);
    std::set<std::string_view> names;
    for (const DtypeInfo& t : allDtypes()) CHECK(names.insert(t.name).second);
}

TEST_CASE("values survive encoding in every dtype", "[dtype]") {
    const std::vector<double> ints = {0, 1, -1, 127, -128};
    for (const char* name : {"i8", "i16", "i32", "i64"}) {
        const DtypeInfo& t = dtypeNamed(name);
        const std::string bytes = encodeValues(ints, t);
        CHECK(bytes.size() == ints.size() * static_cast<size_t>(t.bytes));
        CHECK(decodeValues(bytes, t) == ints);
    }
    const std::vector<double> unsignedValues = {0, 1, 255, 4294967295.0};
    CHECK(decodeValues(encodeValues(unsignedValues, dtypeNamed("u32")), dtypeNamed("u32")) == unsignedValues);
    CHECK_THROWS_AS(encodeValues({-1}, dtypeNamed("u32")), InputError);
    CHECK_THROWS_AS(encodeValues({0.5}, dtypeNamed("i32")), InputError);
    CHECK_THROWS_AS(encodeValues({128}, dtypeNamed("i8")), InputError);
    // Floats round to nearest even on the way in.
    const std::vector<double> floats = {0.1, -2.5, 65504, 1e-3};
    for (const char* name : {"f64", "f32", "f16", "bf16"}) {
        const DtypeInfo& t = dtypeNamed(name);
        const auto back = decodeValues(encodeValues(floats, t), t);
        REQUIRE(back.size() == floats.size());
        for (size_t i = 0; i < floats.size(); ++i) CHECK(std::fabs(back[i] - floats[i]) <= t.unitRoundoff * std::fabs(floats[i]));
    }
    CHECK(decodeValues(encodeValues({0.1}, dtypeNamed("f64")), dtypeNamed("f64"))[0] == 0.1);
}

TEST_CASE("fill rules make the distributions they name", "[dtype][fill]") {
    const std::map<std::string, double> vars = {{"n", 1000}, {"BINS", 16}};
    const DtypeInfo& i32 = dtypeNamed("i32");
    const DtypeInfo& f16 = dtypeNamed("f16");

    const auto keys = generateFill(parseFill("randint(0, BINS)", i32, vars), i32, 5000, 7);
    CHECK(*std::min_element(keys.begin(), keys.end()) == 0);
    CHECK(*std::max_element(keys.begin(), keys.end()) == 15);

    const auto unique = generateFill(parseFill("unique(0, 2*n)", i32, vars), i32, 1000, 7);
    CHECK(std::set<double>(unique.begin(), unique.end()).size() == 1000);
    CHECK(!std::is_sorted(unique.begin(), unique.end()));
    const auto sparse = generateFill(parseFill("unique(-1000000, 1000000)", i32, vars), i32, 1000, 7);
    CHECK(std::set<double>(sparse.begin(), sparse.end()).size() == 1000);

    const auto sorted = generateFill(parseFill("randint(-5,5) sorted", i32, vars), i32, 100, 3);
    CHECK(std::is_sorted(sorted.begin(), sorted.end()));

    const auto halves = generateFill(parseFill("", f16, vars), f16, 1000, 1);
    for (double v : halves) {
        CHECK(v >= -1);
        CHECK(v <= 1);
        CHECK(decodeValues(encodeValues({v}, f16), f16)[0] == v);  // exact in the dtype
    }
    CHECK(generateFill(parseFill("iota(3)", i32, vars), i32, 3, 1) == std::vector<double>{3, 4, 5});
    CHECK(generateFill(parseFill("const(2)", f16, vars), f16, 2, 1) == std::vector<double>{2, 2});
    // Same seed, same values; another seed, others.
    CHECK(generateFill(parseFill("", f16, vars), f16, 64, 9) == generateFill(parseFill("", f16, vars), f16, 64, 9));
    CHECK(generateFill(parseFill("", f16, vars), f16, 64, 9) != generateFill(parseFill("", f16, vars), f16, 64, 10));
}

// Large fills are generated in chunks on several threads, each chunk from its own seed: the
// values depend on the seed alone, so a shorter fill is a prefix of a longer one across chunk
// boundaries, and the chunks are not copies of one another.
TEST_CASE("large fills are the same values whatever their length and the threads", "[dtype][fill]") {
    const std::map<std::string, double> vars;
    const DtypeInfo& f32 = dtypeNamed("f32");
    const DtypeInfo& i32 = dtypeNamed("i32");
    const std::size_t chunk = std::size_t{1} << 20;
    for (const char* rule : {"uniform(-1, 3)", "normal(0, 1)"}) {
        INFO(rule);
        const auto longer = generateFill(parseFill(rule, f32, vars), f32, 3 * chunk + 12345, 5);
        const auto shorter = generateFill(parseFill(rule, f32, vars), f32, chunk + chunk / 2, 5);
        CHECK(std::equal(shorter.begin(), shorter.end(), longer.begin()));
        CHECK(!std::equal(longer.begin(), longer.begin() + 1000, longer.begin() + static_cast<long>(chunk)));
        double mean = 0;
        for (double v : longer) mean += v;
        mean /= static_cast<double>(longer.size());
        CHECK(mean == Approx(std::string(rule) == "normal(0, 1)" ? 0.0 : 1.0).margin(0.01));
    }
    const auto keys = generateFill(parseFill("randint(0, 7)", i32, vars), i32, 2 * chunk + 3, 11);
    const auto prefix = generateFill(parseFill("randint(0, 7)", i32, vars), i32, chunk + 1, 11);
    CHECK(std::equal(prefix.begin(), prefix.end(), keys.begin()));
    CHECK(*std::max_element(keys.begin(), keys.end()) == 6);
}

TEST_CASE("bad fill rules are refused with the reason", "[dtype][fill]") {
    const std::map<std::string, double> vars = {{"n", 10}};
    const DtypeInfo& i32 = dtypeNamed("i32");
    auto reason = [&](const std::string& rule, const DtypeInfo& t) {
        try {
            parseFill(rule, t, vars);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK_THAT(reason("poisson(3)", i32), Catch::Contains("unknown distribution"));
    CHECK_THAT(reason("randint(5)", i32), Catch::Contains("takes 2 arguments"));
    CHECK_THAT(reason("randint(5, 5)", i32), Catch::Contains("empty"));
    CHECK_THAT(reason("randint(0, m)", i32), Catch::Contains("m"));
    CHECK_THAT(reason("uniform(0, 1)", i32), Catch::Contains("integer type"));
    CHECK_THAT(reason("randint(0, 5000000000)", i32), Catch::Contains("does not fit"));
    CHECK_THAT(reason("uniform", dtypeNamed("f32")), Catch::Contains("expected NAME(ARGS)"));
    CHECK_THROWS_AS(generateFill(parseFill("unique(0, 5)", i32, vars), i32, 10, 1), InputError);
}
