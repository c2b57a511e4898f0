// Element types of kernel arguments: one table (CUTLASS's tag tables, applied) that every part
// reads, instead of each keeping its own idea of what "f16" or "unsigned int" is.
//
// Host values are doubles: every f16/bf16/f32/f64 value is a double, and so is every integer
// the input generators make (they stay below 2^53 in magnitude), so one vector<double> holds
// any argument exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

enum class DtypeKind { Float, Signed, Unsigned };

struct DtypeInfo {
    std::string_view name;        // "f16", "i32", "u64"
    std::string_view ctype;       // the C type a kernel declares: "__half", "int"
    int bytes = 0;
    DtypeKind kind = DtypeKind::Float;
    double unitRoundoff = 0;      // 2^-p for floats (half an ulp at 1), 0 for integers
    // The smallest positive (subnormal) value: below the normal range rounding to this type errs
    // by up to half of it, an absolute error however small the value. 0 for integers.
    double subnormalStep = 0;
};

// Every known dtype, in a stable order (floats, then signed, then unsigned integers).
const std::vector<DtypeInfo>& allDtypes();

// nullptr when unknown. dtypeOfCType accepts the spellings kernels use ("unsigned",
// "unsigned int", "uint32_t", "long long", "int64_t", ...).
const DtypeInfo* findDtype(std::string_view name);
const DtypeInfo* findDtypeOfCType(std::string_view ctype);

// Throw InputError naming what is unknown.
const DtypeInfo& dtypeNamed(std::string_view name);
const DtypeInfo& dtypeOfCType(std::string_view ctype);

// values rounded to the dtype (round to nearest even for floats; integers must already be
// integers in range, else InputError names the first bad one) as the dtype's little-endian bytes.
std::string encodeValues(const std::vector<double>& values, const DtypeInfo& dtype);
// bytes.size() / dtype.bytes values (a trailing partial element is ignored).
std::vector<double> decodeValues(std::string_view bytes, const DtypeInfo& dtype);

}  // namespace kx::engine
