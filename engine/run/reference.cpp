#include "run/reference.hpp"

#include "run/dtype.hpp"
#include "run/fp8.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace kx::engine {
namespace {

// [SECTION] GEMM helpers

// A row-major B is consumed kPanelK rows at a time, so the panel that every row of C reuses stays
// in cache (2 MiB at N = 1024).
constexpr int kPanelK = 256;
// A column-major B is consumed kPanelN rows (columns of C) at a time, for the same reason.
constexpr int kPanelN = 64;
// Products smaller than this many multiply-adds are not worth starting threads for.
constexpr double kThreadedWork = 1 << 22;

// A dot product with four independent partial sums: lets the compiler keep several additions in
// flight (and vectorise) without -ffast-math, since the order is fixed by the code.
double dot(const double* a, const double* b, int n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < n; ++k) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

// Rows [r0, r1) of C.
void gemmRows(int N, int K, bool bColMajor, const double* A, const double* B, double* C, int r0, int r1) {
    if (bColMajor) {
        // Both operands are read along k: C[i][j] is the dot product of row i of A and row j of
        // B. A group of kPanelN rows of B is reused for every row of A before the next group.
        for (int j0 = 0; j0 < N; j0 += kPanelN) {
            const int j1 = std::min(N, j0 + kPanelN);
            for (int i = r0; i < r1; ++i) {
                const double* a = A + static_cast<std::size_t>(i) * K;
                double* c = C + static_cast<std::size_t>(i) * N;
                for (int j = j0; j < j1; ++j) c[j] = dot(a, B + static_cast<std::size_t>(j) * K, K);
            }
        }
    } else {
        // i-k-j order: row i of C accumulates A[i][k] times row k of B, so the innermost loop runs
        // along contiguous rows of B and C. A panel of kPanelK rows of B is reused by every row.
        for (int i = r0; i < r1; ++i) std::fill_n(C + static_cast<std::size_t>(i) * N, N, 0.0);
        for (int k0 = 0; k0 < K; k0 += kPanelK) {
            const int k1 = std::min(K, k0 + kPanelK);
            for (int i = r0; i < r1; ++i) {
                double* c = C + static_cast<std::size_t>(i) * N;
                for (int k = k0; k < k1; ++k) {
                    const double a = A[static_cast<std::size_t>(i) * K + k];
                    const double* b = B + static_cast<std::size_t>(k) * N;
                    for (int j = 0; j < N; ++j) c[j] += a * b[j];
                }
            }
        }
    }
}

// [SECTION] Binary16 and bfloat16

struct Format {
    int fractionBits;  // stored fraction bits: 10 for half, 7 for bfloat16
    int exponentBits;  // 5 for half, 8 for bfloat16
    std::uint32_t quietNan;
};
constexpr Format kHalf{10, 5, 0x7e00};
constexpr Format kBf16{7, 8, 0x7fc0};

std::uint16_t encode(double x, const Format& f) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 63) << (f.fractionBits + f.exponentBits);
    const std::uint32_t infinity = ((1u << f.exponentBits) - 1) << f.fractionBits;
    if (std::isnan(x)) return static_cast<std::uint16_t>(sign | f.quietNan);
    if (std::isinf(x)) return static_cast<std::uint16_t>(sign | infinity);

    const int bias = (1 << (f.exponentBits - 1)) - 1;
    const int minExponent = 1 - bias;  // of the smallest normal
    const int biasedDouble = static_cast<int>((bits >> 52) & 0x7ff);
    // Zero, and double subnormals (below 2^-1022, far under half of any target's smallest
    // subnormal), round to a signed zero.
    if (biasedDouble == 0) return static_cast<std::uint16_t>(sign);
    const int e = biasedDouble - 1023;
    if (e > bias) return static_cast<std::uint16_t>(sign | infinity);
    const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);

    // |x| = significand * 2^(e - 52). The target's spacing near |x| is 2^(e - fractionBits) for
    // normals and 2^(minExponent - fractionBits) for subnormals: drop the bits below it.
    const int shift = 52 - f.fractionBits + (e < minExponent ? minExponent - e : 0);
    if (shift >= 54) return static_cast<std::uint16_t>(sign);  // below half the smallest subnormal
    std::uint64_t q = significand >> shift;
    const std::uint64_t rest = significand & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;  // to nearest, ties to even

    std::uint32_t magnitude;
    if (e < minExponent) {
        // Subnormal: q counts units of the smallest subnormal; q == 2^fractionBits is exactly
        // the smallest normal, whose encoding is that same number.
        magnitude = static_cast<std::uint32_t>(q);
    } else {
        // q in [2^f, 2^(f+1)]: rounding up to 2^(f+1) carries into the exponent by itself.
        magnitude = (static_cast<std::uint32_t>(e + bias) << f.fractionBits) +
                    static_cast<std::uint32_t>(q - (std::uint64_t{1} << f.fractionBits));
        magnitude = std::min(magnitude, infinity);
    }
    return static_cast<std::uint16_t>(sign | magnitude);
}

double decode(std::uint16_t bits, const Format& f) {
    const int bias = (1 << (f.exponentBits - 1)) - 1;
    const bool negative = (bits >> (f.fractionBits + f.exponentBits)) & 1;
    const int exponent = (bits >> f.fractionBits) & ((1 << f.exponentBits) - 1);
    const int fraction = bits & ((1 << f.fractionBits) - 1);
    double value;
    if (exponent == (1 << f.exponentBits) - 1)
        value = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (exponent == 0)
        value = std::ldexp(fraction, 1 - bias - f.fractionBits);
    else
        value = std::ldexp(fraction + (1 << f.fractionBits), exponent - bias - f.fractionBits);
    return negative ? -value : value;
}

double unitRoundoff(std::string_view dtype) {
    const DtypeInfo* t = findDtype(dtype);
    if (t == nullptr || t->kind != DtypeKind::Float)
        throw InputError("unknown floating-point type '" + std::string(dtype) + "' (f64, f32, f16, bf16 or an fp8 format)");
    return t->unitRoundoff;
}

}  // namespace

// [SECTION] GEMM

void gemmReference(int M, int N, int K, bool bColMajor, const double* A, const double* B, double* C) {
    if (M <= 0 || N <= 0) return;
    const double work = static_cast<double>(M) * N * std::max(K, 1);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const int threads = work < kThreadedWork ? 1 : static_cast<int>(std::min<unsigned>(cores, std::min(M, 64)));
    if (threads == 1) {
        gemmRows(N, K, bColMajor, A, B, C, 0, M);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(threads);
    int done = 0;  // rows [0, done) are handed to threads
    try {
        for (int t = 0; t < threads; ++t) {
            const int r1 = static_cast<int>(static_cast<long long>(M) * (t + 1) / threads);
            pool.emplace_back(gemmRows, N, K, bColMajor, A, B, C, done, r1);
            done = r1;
        }
    } catch (const std::system_error&) {
        // No more threads to be had (a sandbox, a loaded machine): this one does the rest.
    }
    gemmRows(N, K, bColMajor, A, B, C, done, M);
    for (std::thread& t : pool) t.join();
}

double gemmReferenceAt([[maybe_unused]] int M, int N, int K, bool bColMajor, const double* A, const double* B, int row,
                       int col) {
    const double* a = A + static_cast<std::size_t>(row) * K;
    if (bColMajor) return dot(a, B + static_cast<std::size_t>(col) * K, K);
    double s = 0;
    for (int k = 0; k < K; ++k) s += a[k] * B[static_cast<std::size_t>(k) * N + col];
    return s;
}

// [SECTION] Reduction

double reduceReference(bool isMax, const double* data, std::size_t n) {
    if (isMax) {
        double m = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < n; ++i)
            if (data[i] > m) m = data[i];  // false for NaN: skipped, as fmaxf does
        return m;
    }
    // Neumaier's compensated sum: c collects what each addition rounds away, so the result is
    // within about 2 ulps of the exact sum however long the data. Once an infinity or NaN
    // enters, the compensation is meaningless and the plain sum already has the IEEE answer.
    double s = 0, c = 0, plain = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double x = data[i];
        const double t = s + x;
        c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
        s = t;
        plain += x;
    }
    return std::isfinite(plain) ? s + c : plain;
}

// [SECTION] Number formats

std::uint16_t toHalfBits(double x) { return encode(x, kHalf); }
std::uint16_t toBf16Bits(double x) { return encode(x, kBf16); }

const std::array<double, 65536>& sixteenBitValues(bool half) {
    static const auto table = [](const Format& format) {
        auto t = std::make_unique<std::array<double, 65536>>();
        for (std::uint32_t b = 0; b < 65536; ++b) (*t)[b] = decode(static_cast<std::uint16_t>(b), format);
        return t;
    };
    static const std::unique_ptr<std::array<double, 65536>> halfValues = table(kHalf), bf16Values = table(kBf16);
    return half ? *halfValues : *bf16Values;
}

double fromHalfBits(std::uint16_t bits) { return sixteenBitValues(true)[bits]; }
double fromBf16Bits(std::uint16_t bits) { return sixteenBitValues(false)[bits]; }

double roundToDtype(double x, std::string_view dtype) {
    if (dtype == "f64") return x;
    if (dtype == "f32") {
        // Past the halfway point between FLT_MAX and 2^128 the nearest-even float is infinity; a
        // plain cast would be undefined behaviour there.
        constexpr double overflow = 0x1p128 - 0x1p103;
        if (std::fabs(x) >= overflow) return std::copysign(std::numeric_limits<double>::infinity(), x);
        return static_cast<double>(static_cast<float>(x));  // the FPU rounds to nearest even
    }
    if (dtype == "f16") return fromHalfBits(toHalfBits(x));
    if (dtype == "bf16") return fromBf16Bits(toBf16Bits(x));
    if (const auto fp8 = fp8FormatNamed(dtype)) return fromFp8Bits(toFp8Bits(x, *fp8), *fp8);
    throw InputError("unknown data type '" + std::string(dtype) + "' (f64, f32, f16, bf16 or an fp8 format)");
}

// [SECTION] Tolerance

double tolerance(std::string_view dtype, int reductionLength) {
    constexpr double kLambda = 8;  // see the header: e^(-kLambda^2 / 2) chance of a false failure
    const double length = std::max(1, reductionLength);
    return unitRoundoff(dtype) + kLambda * std::sqrt(length) * unitRoundoff("f32");
}

}  // namespace kx::engine
