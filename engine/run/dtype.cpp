#include "run/dtype.hpp"

#include "run/fp8.hpp"
#include "run/reference.hpp"
#include "util/error.hpp"
#include "util/parallel_ranges.hpp"

#include <cmath>
#include <cstring>
#include <utility>

namespace kx::engine {
namespace {

constexpr double kU64Limit = 18446744073709551616.0;  // 2^64
constexpr std::size_t kValuesPerThread = std::size_t{1} << 20;  // below this a thread costs more than it saves

struct CTypeSpelling {
    std::string_view spelling;
    std::string_view dtype;
};

// Other spellings of the same C types kernels use.
constexpr CTypeSpelling kSpellings[] = {
    {"unsigned", "u32"},          {"uint32_t", "u32"},           {"int32_t", "i32"},
    {"signed int", "i32"},        {"long long int", "i64"},      {"int64_t", "i64"},
    {"unsigned long long int", "u64"}, {"uint64_t", "u64"},      {"int16_t", "i16"},
    {"uint16_t", "u16"},          {"int8_t", "i8"},              {"uint8_t", "u8"},
    {"half", "f16"},              {"nv_bfloat16", "bf16"},       {"char", "i8"},
};

std::pair<double, double> integerRange(const DtypeInfo& t) {
    const int bits = 8 * t.bytes;
    if (t.kind == DtypeKind::Signed) return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
    return {0.0, bits == 64 ? kU64Limit - 1 : std::ldexp(1.0, bits) - 1};
}

}  // namespace

const std::vector<DtypeInfo>& allDtypes() {
    static const std::vector<DtypeInfo> table = {
        {"f64", "double", 8, DtypeKind::Float, 0x1p-53, 0x1p-1074},
        {"f32", "float", 4, DtypeKind::Float, 0x1p-24, 0x1p-149},
        {"f16", "__half", 2, DtypeKind::Float, 0x1p-11, 0x1p-24},
        {"bf16", "__nv_bfloat16", 2, DtypeKind::Float, 0x1p-8, 0x1p-133},
        // 8-bit floats (run/fp8.hpp): NVIDIA's OCP formats and AMD CDNA3's FNUZ ones.
        {"e4m3", "__nv_fp8_e4m3", 1, DtypeKind::Float, 0x1p-4, 0x1p-9},
        {"e5m2", "__nv_fp8_e5m2", 1, DtypeKind::Float, 0x1p-3, 0x1p-16},
        {"e4m3fnuz", "__hip_fp8_e4m3_fnuz", 1, DtypeKind::Float, 0x1p-4, 0x1p-10},
        {"e5m2fnuz", "__hip_fp8_e5m2_fnuz", 1, DtypeKind::Float, 0x1p-3, 0x1p-17},
        {"i8", "signed char", 1, DtypeKind::Signed, 0},
        {"i16", "short", 2, DtypeKind::Signed, 0},
        {"i32", "int", 4, DtypeKind::Signed, 0},
        {"i64", "long long", 8, DtypeKind::Signed, 0},
        {"u8", "unsigned char", 1, DtypeKind::Unsigned, 0},
        {"u16", "unsigned short", 2, DtypeKind::Unsigned, 0},
        {"u32", "unsigned int", 4, DtypeKind::Unsigned, 0},
        {"u64", "unsigned long long", 8, DtypeKind::Unsigned, 0},
    };
    return table;
}

const DtypeInfo* findDtype(std::string_view name) {
    for (const DtypeInfo& t : allDtypes())
        if (t.name == name) return &t;
    return nullptr;
}

const DtypeInfo* findDtypeOfCType(std::string_view ctype) {
    for (const DtypeInfo& t : allDtypes())
        if (t.ctype == ctype) return &t;
    for (const CTypeSpelling& s : kSpellings)
        if (s.spelling == ctype) return findDtype(s.dtype);
    return nullptr;
}

const DtypeInfo& dtypeNamed(std::string_view name) {
    if (const DtypeInfo* t = findDtype(name)) return *t;
    throw InputError("unknown element type '" + std::string(name) + "'");
}

const DtypeInfo& dtypeOfCType(std::string_view ctype) {
    if (const DtypeInfo* t = findDtypeOfCType(ctype)) return *t;
    throw InputError("the runner cannot fill arguments of type '" + std::string(ctype) + "'");
}

std::string encodeValues(const std::vector<double>& values, const DtypeInfo& t) {
    std::string bytes = zeroed<std::string>(values.size() * static_cast<std::size_t>(t.bytes));
    char* out = bytes.data();
    if (t.kind == DtypeKind::Float) {
        // The format chosen once, the values converted on every core.
        const auto fp8 = fp8FormatNamed(t.name);
        const int format = t.name == "f64" ? 0 : t.name == "f32" ? 1 : fp8 ? 2 : t.name == "f16" ? 3 : 4;
        parallelRanges(values.size(), kValuesPerThread, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                const double v = values[i];
                char* o = out + i * static_cast<std::size_t>(t.bytes);
                if (format == 0) {
                    std::memcpy(o, &v, 8);
                } else if (format == 1) {
                    const float f = static_cast<float>(roundToDtype(v, "f32"));
                    std::memcpy(o, &f, 4);
                } else if (format == 2) {
                    *o = static_cast<char>(toFp8Bits(v, *fp8));
                } else {
                    const std::uint16_t b = format == 3 ? toHalfBits(v) : toBf16Bits(v);
                    std::memcpy(o, &b, 2);
                }
            }
        });
        return bytes;
    }
    const auto [lo, hi] = integerRange(t);
    for (std::size_t i = 0; i < values.size(); ++i, out += t.bytes) {
        const double v = values[i];
        if (!(v == std::floor(v)) || v < lo || v > hi)
            throw InputError("value " + std::to_string(v) + " at index " + std::to_string(i) + " is not a " + std::string(t.name));
        // Two's complement: a negative value's low bytes are those of 2^64 + v.
        const std::uint64_t u = v < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) : static_cast<std::uint64_t>(v);
        std::memcpy(out, &u, static_cast<std::size_t>(t.bytes));  // little-endian: the low bytes first
    }
    return bytes;
}

std::vector<double> decodeValues(std::string_view bytes, const DtypeInfo& t) {
    const std::size_t n = bytes.size() / static_cast<std::size_t>(t.bytes);
    std::vector<double> out = zeroedValues(n);
    const char* in = bytes.data();
    if (t.kind == DtypeKind::Float) {
        // One loop per format, the format chosen once.
        if (t.name == "f64") {
            std::memcpy(out.data(), in, n * 8);
        } else if (t.name == "f32") {
            parallelRanges(n, kValuesPerThread, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    float f;
                    std::memcpy(&f, in + 4 * i, 4);
                    out[i] = f;
                }
            });
        } else if (const auto fp8 = fp8FormatNamed(t.name)) {
            parallelRanges(n, kValuesPerThread, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) out[i] = fromFp8Bits(static_cast<std::uint8_t>(in[i]), *fp8);
            });
        } else {
            const std::array<double, 65536>& table = sixteenBitValues(t.name == "f16");
            parallelRanges(n, kValuesPerThread, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    std::uint16_t b;
                    std::memcpy(&b, in + 2 * i, 2);
                    out[i] = table[b];
                }
            });
        }
        return out;
    }
    const int bits = 8 * t.bytes;
    for (std::size_t i = 0; i < n; ++i, in += t.bytes) {
        std::uint64_t u = 0;
        std::memcpy(&u, in, static_cast<std::size_t>(t.bytes));
        if (t.kind == DtypeKind::Signed && bits < 64 && (u >> (bits - 1)) & 1) u |= ~std::uint64_t{0} << bits;  // sign-extend
        out[i] = t.kind == DtypeKind::Signed ? static_cast<double>(static_cast<std::int64_t>(u)) : static_cast<double>(u);
    }
    return out;
}

}  // namespace kx::engine
