// Instruction mix: PTX statements and their classification (declared in instruction_mix_detail.hpp).
#include "analysis/instruction_mix_detail.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_set>

namespace kx::engine::mix_detail {

namespace {

// Bits of a PTX type suffix; 0 when the part is not a type.
int ptxTypeBits(std::string_view t) {
    static const std::pair<std::string_view, int> kTypes[] = {
        {"b8", 8},     {"u8", 8},       {"s8", 8},     {"b16", 16},     {"u16", 16},    {"s16", 16},
        {"f16", 16},   {"bf16", 16},    {"b32", 32},   {"u32", 32},     {"s32", 32},    {"f32", 32},
        {"f16x2", 32}, {"bf16x2", 32},  {"tf32", 32},  {"b64", 64},     {"u64", 64},    {"s64", 64},
        {"f64", 64},   {"b128", 128},   {"e4m3x2", 16}, {"e5m2x2", 16}, {"f32x2", 64},
    };
    for (const auto& [name, bits] : kTypes)
        if (t == name) return bits;
    return 0;
}

// The last type part of an opcode (ld.global.v4.f32 -> 32), 0 when none.
int ptxLastTypeBits(const std::vector<std::string_view>& parts) {
    for (auto it = parts.rbegin(); it != parts.rend() - 1; ++it)
        if (int b = ptxTypeBits(*it)) return b;
    return 0;
}

int ptxVectorCount(const std::vector<std::string_view>& parts) {
    if (has(parts, "v2")) return 2;
    if (has(parts, "v4")) return 4;
    if (has(parts, "v8")) return 8;
    return 1;
}

enum class Space { None, Global, Shared, Local, Param, Const };

// The first state space named in the opcode (ld.shared::cta.f32 -> Shared).
Space ptxSpace(const std::vector<std::string_view>& parts) {
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        if (p == "global") return Space::Global;
        if (p.substr(0, 6) == "shared") return Space::Shared;
        if (p == "local") return Space::Local;
        if (p == "param") return Space::Param;
        if (p == "const") return Space::Const;
    }
    return Space::None;
}

enum class FloatKind { None, F32, Half, F64 };

FloatKind ptxFloatKind(const std::vector<std::string_view>& parts) {
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        if (p == "f32" || p == "f32x2") return FloatKind::F32;
        if (p == "f16" || p == "f16x2" || p == "bf16" || p == "bf16x2") return FloatKind::Half;
        if (p == "f64") return FloatKind::F64;
    }
    return FloatKind::None;
}

// The n-th comma-separated operand, ignoring commas inside [] and {}.
std::string_view nthOperand(std::string_view operands, int n) {
    int depth = 0, index = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= operands.size(); ++i) {
        const char c = i < operands.size() ? operands[i] : ',';
        if (c == '[' || c == '{' || c == '(') ++depth;
        if (c == ']' || c == '}' || c == ')') --depth;
        if (c == ',' && depth <= 0) {
            if (index == n) return trim(operands.substr(start, i - start));
            ++index;
            start = i + 1;
        }
    }
    return {};
}

}  // namespace

Classified classifyPtx(std::string_view opcode, std::string_view operands) {
    using C = InstrCategory;
    const std::vector<std::string_view> parts = splitDots(opcode);
    const std::string_view base = parts[0];
    auto memory = [&](C global, C shared, C local, int width) -> Classified {
        switch (ptxSpace(parts)) {
        case Space::Global: return {global, width};
        case Space::Shared: return {shared, width};
        case Space::Local: return {local, -1};
        default: return {C::OtherMemory, -1};
        }
    };

    if (base == "ld" || base == "ldu")
        return memory(C::GlobalLoad, C::SharedLoad, C::LocalLoad, ptxVectorCount(parts) * ptxLastTypeBits(parts));
    if (base == "st") return memory(C::GlobalStore, C::SharedStore, C::LocalStore, ptxVectorCount(parts) * ptxLastTypeBits(parts));
    if (base == "ldmatrix" || base == "stmatrix") {
        // Each of .x1/.x2/.x4 8x8 b16 matrices gives every thread one 32-bit register.
        const int count = has(parts, "x4") ? 4 : has(parts, "x2") ? 2 : 1;
        return {base == "ldmatrix" ? C::SharedLoad : C::SharedStore, 32 * count};
    }
    if (base == "cp") {
        if (parts.size() > 1 && parts[1] == "reduce") return {C::Atomic};
        if (parts.size() < 2 || parts[1] != "async") return {C::OtherMemory};
        if (has(parts, "commit_group") || has(parts, "wait_group") || has(parts, "wait_all") || has(parts, "mbarrier"))
            return {C::Barrier};
        if (has(parts, "prefetch")) return {C::OtherMemory};
        // cp.async[.bulk].DST.SRC: the destination space comes first.
        if (ptxSpace(parts) == Space::Global) return {C::GlobalStore, 0};
        if (has(parts, "bulk")) return {C::AsyncCopy, 0};
        const int bytes = toInt(nthOperand(operands, 2), 0);  // cp.async.ca.shared.global [dst], [src], 16
        return {C::AsyncCopy, bytes * 8};
    }
    if (base == "mma") return {C::TensorCore};
    if (base == "wgmma") return {parts.size() > 1 && parts[1] == "mma_async" ? C::TensorCore : C::Barrier};
    if (base == "wmma") {
        if (parts.size() > 1 && parts[1] == "load") return memory(C::GlobalLoad, C::SharedLoad, C::LocalLoad, 0);
        if (parts.size() > 1 && parts[1] == "store") return memory(C::GlobalStore, C::SharedStore, C::LocalStore, 0);
        return {C::TensorCore};
    }
    if (base == "tcgen05") return {parts.size() > 1 && parts[1].substr(0, 3) == "mma" ? C::TensorCore : C::Other};
    if (base == "bar" || base == "barrier" || base == "membar" || base == "fence" || base == "mbarrier") return {C::Barrier};
    if (base == "shfl" || base == "redux") return {C::Shuffle};
    if (base == "atom" || base == "red" || base == "sured") return {C::Atomic};
    if (base == "bra" || base == "brx" || base == "call" || base == "ret" || base == "exit" || base == "trap")
        return {C::Control};
    if (base == "cvt") return {C::Conversion};
    if (base == "cvta") return {C::Integer};
    if (base == "prefetch" || base == "prefetchu" || base == "tex" || base == "tld4" || base == "txq" || base == "suld" ||
        base == "sust")
        return {C::OtherMemory};

    const FloatKind fk = ptxFloatKind(parts);
    if (base == "fma" || base == "add" || base == "sub" || base == "mul" || base == "mad") {
        switch (fk) {
        case FloatKind::F32: return {C::Fp32};
        case FloatKind::Half: return {C::Fp16};
        case FloatKind::F64: return {C::Fp64};
        case FloatKind::None: return {C::Integer};
        }
    }
    static const std::unordered_set<std::string_view> kSpecial = {"rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"};
    if (kSpecial.count(base)) return {C::SpecialFunction};
    if (base == "div") return {fk == FloatKind::None ? C::Integer : C::SpecialFunction};
    static const std::unordered_set<std::string_view> kIntegerOnly = {
        "mul24", "mad24", "sad", "rem", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext",
        "dp4a", "dp2a", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "prmt"};
    if (kIntegerOnly.count(base)) return {has(parts, "pred") ? C::Other : C::Integer};
    if (base == "abs" || base == "neg" || base == "min" || base == "max" || base == "setp" || base == "set")
        return {fk == FloatKind::None ? C::Integer : C::Other};
    return {C::Other};
}

namespace {

// Directives that end at the end of their line instead of at a ';'.
bool isLineDirective(std::string_view word) {
    static const std::unordered_set<std::string_view> kLine = {
        ".loc",    ".file",    ".version",   ".target",        ".address_size",      ".maxntid",
        ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".explicitcluster", ".reqnctapercluster",
        ".maxclusterrank", ".noreturn"};
    return kLine.count(word) > 0;
}

}  // namespace

std::string cleanPtx(std::string_view ptx) {
    std::string out;
    out.reserve(ptx.size());
    bool inString = false;
    for (std::size_t i = 0; i < ptx.size(); ++i) {
        const char c = ptx[i];
        if (inString) {
            out += c;
            if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
            while (i < ptx.size() && ptx[i] != '\n') ++i;
            if (i < ptx.size()) out += '\n';
            continue;
        }
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
            const std::size_t end = ptx.find("*/", i + 2);
            for (std::size_t j = i; j < std::min(end, ptx.size()); ++j)
                if (ptx[j] == '\n') out += '\n';
            if (end == std::string_view::npos) break;
            i = end + 1;
            continue;
        }
        out += c;
    }
    std::string kept;
    kept.reserve(out.size());
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string_view line(out.data() + start, end - start);
        if (!isLineDirective(firstWord(line).first)) kept.append(line);
        kept += '\n';
        start = end + 1;
    }
    return kept;
}

namespace {

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

}  // namespace

std::string_view stripPrefixes(std::string_view s) {
    for (;;) {
        s = trim(s);
        if (s.empty()) return s;
        if (s.front() == '{' || s.front() == '}') {
            s.remove_prefix(1);
            continue;
        }
        // A label is an identifier without dots followed by ':' (not '::', as in shared::cta).
        std::size_t i = 0;
        while (i < s.size() && isIdentChar(s[i])) ++i;
        std::size_t j = i;
        while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (i > 0 && j < s.size() && s[j] == ':' && (j + 1 >= s.size() || s[j + 1] != ':')) {
            s.remove_prefix(j + 1);
            continue;
        }
        if (s.front() == '@') {
            s = firstWord(s).second;
            continue;
        }
        return s;
    }
}

bool parseFunctionHeader(std::string_view stmt, std::string* name, bool* entry, std::string_view* rest) {
    std::size_t pos = std::string_view::npos;
    for (std::string_view kw : {std::string_view(".entry"), std::string_view(".func")}) {
        std::size_t at = 0;
        while ((at = stmt.find(kw, at)) != std::string_view::npos) {
            const std::size_t after = at + kw.size();
            if ((at == 0 || isSpace(stmt[at - 1])) && after < stmt.size() && (isSpace(stmt[after]) || stmt[after] == '(')) {
                pos = after;
                *entry = kw == ".entry";
                break;
            }
            at = after;
        }
        if (pos != std::string_view::npos) break;
    }
    if (pos == std::string_view::npos) return false;
    auto skipSpace = [&] {
        while (pos < stmt.size() && isSpace(stmt[pos])) ++pos;
    };
    auto skipParens = [&] {
        if (pos >= stmt.size() || stmt[pos] != '(') return;
        int depth = 0;
        for (; pos < stmt.size(); ++pos) {
            if (stmt[pos] == '(') ++depth;
            if (stmt[pos] == ')' && --depth == 0) {
                ++pos;
                return;
            }
        }
    };
    skipSpace();
    skipParens();  // a .func's return parameters
    skipSpace();
    const std::size_t nameStart = pos;
    while (pos < stmt.size() && isIdentChar(stmt[pos])) ++pos;
    if (pos == nameStart) return false;
    *name = std::string(stmt.substr(nameStart, pos - nameStart));
    skipSpace();
    skipParens();
    const std::size_t brace = stmt.find('{', pos);
    if (brace == std::string_view::npos) return false;
    *rest = stmt.substr(brace + 1);
    return true;
}

}  // namespace kx::engine::mix_detail
