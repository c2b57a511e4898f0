#include "run/fp8.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace kx::engine {
namespace {

struct Layout {
    int exponentBits;
    int bias;
    bool ieeeSpecials;  // e5m2: the top exponent holds infinities and NaNs
    bool fnuz;          // the "negative zero" pattern 0x80 is the only NaN, and there is no -0
};

Layout layoutOf(Fp8Format f) {
    switch (f) {
        case Fp8Format::E4M3: return {4, 7, false, false};
        case Fp8Format::E5M2: return {5, 15, true, false};
        case Fp8Format::E4M3Fnuz: return {4, 8, false, true};
        case Fp8Format::E5M2Fnuz: return {5, 16, false, true};
    }
    return {4, 7, false, false};
}

double decodeBits(std::uint8_t bits, const Layout& l) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    const int fractionBits = 7 - l.exponentBits;
    const int topExponent = (1 << l.exponentBits) - 1;
    const bool negative = bits & 0x80;
    const int exponent = (bits >> fractionBits) & topExponent;
    const int fraction = bits & ((1 << fractionBits) - 1);
    if (l.fnuz && bits == 0x80) return kNaN;
    if (l.ieeeSpecials && exponent == topExponent)
        return fraction ? kNaN : (negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
    // OCP E4M3 keeps the top exponent for numbers, all but S.1111.111.
    if (!l.ieeeSpecials && !l.fnuz && exponent == topExponent && fraction == (1 << fractionBits) - 1) return kNaN;
    const double magnitude = exponent == 0 ? std::ldexp(fraction, 1 - l.bias - fractionBits)
                                           : std::ldexp(fraction + (1 << fractionBits), exponent - l.bias - fractionBits);
    return negative ? -magnitude : magnitude;
}

// The non-negative finite values of a format with their bit patterns, in increasing order (the
// patterns 0x00..0x7f read as numbers grow with the pattern; the specials are left out).
struct Table {
    std::array<double, 256> values{};
    std::vector<std::pair<double, std::uint8_t>> positive;
};

const Table& tableOf(Fp8Format f) {
    static const std::array<Table, 4> tables = [] {
        std::array<Table, 4> all;
        for (int i = 0; i < 4; ++i) {
            const Layout l = layoutOf(static_cast<Fp8Format>(i));
            for (int b = 0; b < 256; ++b) all[i].values[b] = decodeBits(static_cast<std::uint8_t>(b), l);
            for (int b = 0; b < 128; ++b)
                if (std::isfinite(all[i].values[b])) all[i].positive.emplace_back(all[i].values[b], static_cast<std::uint8_t>(b));
        }
        return all;
    }();
    return tables[static_cast<int>(f)];
}

}  // namespace

std::optional<Fp8Format> fp8FormatNamed(std::string_view dtype) {
    if (dtype == "e4m3") return Fp8Format::E4M3;
    if (dtype == "e5m2") return Fp8Format::E5M2;
    if (dtype == "e4m3fnuz") return Fp8Format::E4M3Fnuz;
    if (dtype == "e5m2fnuz") return Fp8Format::E5M2Fnuz;
    return std::nullopt;
}

double fromFp8Bits(std::uint8_t bits, Fp8Format format) { return tableOf(format).values[bits]; }

std::uint8_t toFp8Bits(double x, Fp8Format format) {
    const Layout l = layoutOf(format);
    if (std::isnan(x)) return l.fnuz ? 0x80 : 0x7f;  // e4m3: S.1111.111; e5m2: a quiet NaN
    const auto& positive = tableOf(format).positive;
    const double m = std::fabs(x);
    // The first value >= m; saturate above the largest.
    const auto above = std::lower_bound(positive.begin(), positive.end(), m,
                                        [](const std::pair<double, std::uint8_t>& e, double v) { return e.first < v; });
    std::uint8_t code;
    if (above == positive.end()) {
        code = positive.back().second;
    } else if (above == positive.begin() || above->first == m) {
        code = above->second;
    } else {
        const auto below = above - 1;
        const double up = above->first - m, down = m - below->first;
        // Ties go to the even pattern (an even last fraction bit).
        code = up < down || (up == down && (above->second & 1) == 0) ? above->second : below->second;
    }
    const bool negative = std::signbit(x);
    if (!negative) return code;
    if (l.fnuz && code == 0) return 0;  // no -0 in FNUZ formats: 0x80 is the NaN
    return static_cast<std::uint8_t>(code | 0x80);
}

}  // namespace kx::engine
