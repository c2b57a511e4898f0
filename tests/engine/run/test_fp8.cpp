// The 8-bit float formats: known values from the OCP 8-bit floating point specification and AMD's
// CDNA3 ISA guide, rounding ties to even, saturation, and every pattern's round trip.
#include "run/dtype.hpp"
#include "run/fp8.hpp"
#include "run/reference.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kx::engine;

namespace {
constexpr Fp8Format kAll[] = {Fp8Format::E4M3, Fp8Format::E5M2, Fp8Format::E4M3Fnuz, Fp8Format::E5M2Fnuz};
}

TEST_CASE("fp8 patterns decode to the values the formats define", "[dtype][fp8]") {
    // OCP E4M3: bias 7, 448 the largest, S.1111.111 the NaN, smallest subnormal 2^-9.
    CHECK(fromFp8Bits(0x38, Fp8Format::E4M3) == 1.0);
    CHECK(fromFp8Bits(0x7e, Fp8Format::E4M3) == 448.0);
    CHECK(std::isnan(fromFp8Bits(0x7f, Fp8Format::E4M3)));
    CHECK(std::isnan(fromFp8Bits(0xff, Fp8Format::E4M3)));
    CHECK(fromFp8Bits(0x01, Fp8Format::E4M3) == std::ldexp(1.0, -9));
    CHECK(fromFp8Bits(0xb8, Fp8Format::E4M3) == -1.0);
    CHECK(std::signbit(fromFp8Bits(0x80, Fp8Format::E4M3)));  // -0
    // OCP E5M2: IEEE-like, bias 15, 57344 the largest, infinities at 0x7c / 0xfc.
    CHECK(fromFp8Bits(0x3c, Fp8Format::E5M2) == 1.0);
    CHECK(fromFp8Bits(0x7b, Fp8Format::E5M2) == 57344.0);
    CHECK(fromFp8Bits(0x7c, Fp8Format::E5M2) == std::numeric_limits<double>::infinity());
    CHECK(fromFp8Bits(0xfc, Fp8Format::E5M2) == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(fromFp8Bits(0x7d, Fp8Format::E5M2)));
    CHECK(fromFp8Bits(0x01, Fp8Format::E5M2) == std::ldexp(1.0, -16));
    // AMD's FNUZ formats: one more in the bias, 0x80 the only NaN, the top exponent all numbers.
    CHECK(fromFp8Bits(0x40, Fp8Format::E4M3Fnuz) == 1.0);
    CHECK(fromFp8Bits(0x7f, Fp8Format::E4M3Fnuz) == 240.0);
    CHECK(std::isnan(fromFp8Bits(0x80, Fp8Format::E4M3Fnuz)));
    CHECK(fromFp8Bits(0xff, Fp8Format::E4M3Fnuz) == -240.0);
    CHECK(fromFp8Bits(0x01, Fp8Format::E4M3Fnuz) == std::ldexp(1.0, -10));
    CHECK(fromFp8Bits(0x40, Fp8Format::E5M2Fnuz) == 1.0);
    CHECK(fromFp8Bits(0x7f, Fp8Format::E5M2Fnuz) == 57344.0);
    CHECK(std::isnan(fromFp8Bits(0x80, Fp8Format::E5M2Fnuz)));
    CHECK(fromFp8Bits(0x01, Fp8Format::E5M2Fnuz) == std::ldexp(1.0, -17));
}

TEST_CASE("fp8 conversion rounds to nearest even and saturates", "[dtype][fp8]") {
    // Between 1 (0x38) and 1.125 (0x39) in E4M3: the midpoint goes to the even pattern 0x38,
    // anything above it up; between 1.125 and 1.25 (0x3a) the midpoint goes up to 0x3a.
    CHECK(toFp8Bits(1.0625, Fp8Format::E4M3) == 0x38);
    CHECK(toFp8Bits(1.0626, Fp8Format::E4M3) == 0x39);
    CHECK(toFp8Bits(1.1875, Fp8Format::E4M3) == 0x3a);
    CHECK(toFp8Bits(-1.1875, Fp8Format::E4M3) == 0xba);
    // Saturation, never NaN or infinity from a number.
    CHECK(toFp8Bits(1e6, Fp8Format::E4M3) == 0x7e);
    CHECK(toFp8Bits(-1e6, Fp8Format::E4M3Fnuz) == 0xff);
    CHECK(toFp8Bits(1e9, Fp8Format::E5M2) == 0x7b);
    CHECK(toFp8Bits(std::numeric_limits<double>::infinity(), Fp8Format::E5M2Fnuz) == 0x7f);
    // Underflow: below half the smallest subnormal is zero; FNUZ has no -0.
    CHECK(toFp8Bits(std::ldexp(1.0, -11), Fp8Format::E4M3) == 0x00);
    CHECK(toFp8Bits(-std::ldexp(1.0, -11), Fp8Format::E4M3) == 0x80);
    CHECK(toFp8Bits(-std::ldexp(1.0, -12), Fp8Format::E4M3Fnuz) == 0x00);
    CHECK(toFp8Bits(-0.0, Fp8Format::E5M2Fnuz) == 0x00);
    // NaN to each format's NaN.
    for (Fp8Format f : kAll) CHECK(std::isnan(fromFp8Bits(toFp8Bits(std::nan(""), f), f)));
}

TEST_CASE("every fp8 value converts back to its own pattern", "[dtype][fp8]") {
    for (Fp8Format f : kAll) {
        for (int b = 0; b < 256; ++b) {
            const double v = fromFp8Bits(static_cast<std::uint8_t>(b), f);
            if (!std::isfinite(v)) continue;
            INFO("format " << static_cast<int>(f) << " pattern " << b);
            CHECK(toFp8Bits(v, f) == b);
        }
    }
}

TEST_CASE("fp8 dtypes in the table: one byte, encoded and rounded like the others", "[dtype][fp8]") {
    for (const char* name : {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"}) {
        const DtypeInfo& t = dtypeNamed(name);
        INFO(name);
        CHECK(t.bytes == 1);
        CHECK(t.kind == DtypeKind::Float);
        CHECK(dtypeOfCType(t.ctype).name == t.name);
        const std::vector<double> values = {0.1, -0.75, 3.0, 0.013};
        const std::string bytes = encodeValues(values, t);
        REQUIRE(bytes.size() == values.size());
        const auto back = decodeValues(bytes, t);
        for (size_t i = 0; i < values.size(); ++i) {
            CHECK(back[i] == roundToDtype(values[i], t.name));
            CHECK(std::fabs(back[i] - values[i]) <= t.unitRoundoff * std::fabs(values[i]) + t.subnormalStep / 2);
        }
    }
    CHECK(dtypeOfCType("__hip_fp8_e4m3_fnuz").name == "e4m3fnuz");
}
