#include "widgets/syntax.hpp"

#include <algorithm>
#include <iterator>
#include <cctype>

namespace kx::app {

namespace {

// [SECTION] Word tables (unsorted; looked up only for visible identifiers)

constexpr std::string_view kCudaKeywords[] = {
    "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
    "return", "goto", "template", "typename", "class", "struct", "union", "enum", "namespace", "using",
    "typedef", "sizeof", "alignof", "alignas", "decltype", "static_assert", "true", "false", "nullptr",
    "this", "operator", "new", "delete", "public", "private", "protected", "asm", "if constexpr"};

constexpr std::string_view kCudaTypes[] = {
    "void", "bool", "char", "short", "int", "long", "float", "double", "unsigned",
    "signed", "auto", "half", "half2", "__half", "__half2", "__nv_bfloat16", "__nv_bfloat162",
    "nv_bfloat16", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "dim3", "cudaStream_t"};

constexpr std::string_view kCudaQualifiers[] = {
    "__global__", "__device__", "__host__", "__shared__", "__constant__",
    "__restrict__", "__forceinline__", "__noinline__", "__launch_bounds__", "__align__", "__managed__",
    "__grid_constant__", "const", "volatile", "static", "inline", "extern", "constexpr", "register",
    "mutable", "thread_local"};

constexpr std::string_view kCudaBuiltins[] = {
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

// Vector types: float4, int2, uchar3, ... are a base name plus a width digit.
constexpr std::string_view kVectorBases[] = {
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    "longlong", "ulonglong", "float", "double"};

template <std::size_t N>
bool contains(const std::string_view (&table)[N], std::string_view word) {
    return std::find(std::begin(table), std::end(table), word) != std::end(table);
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool isVectorType(std::string_view w) {
    if (w.size() < 2) return false;
    const char last = w.back();
    if (last < '1' || last > '4') return false;
    return contains(kVectorBases, w.substr(0, w.size() - 1));
}

SyntaxClass classifyCudaWord(std::string_view w) {
    if (contains(kCudaKeywords, w)) return SyntaxClass::Keyword;
    if (contains(kCudaTypes, w) || isVectorType(w)) return SyntaxClass::Type;
    if (w.size() > 2 && w.substr(w.size() - 2) == "_t") return SyntaxClass::Type;  // size_t, int32_t
    if (contains(kCudaQualifiers, w)) return SyntaxClass::Qualifier;
    if (contains(kCudaBuiltins, w)) return SyntaxClass::Builtin;
    if (w.size() > 2 && w.substr(0, 2) == "__") return SyntaxClass::Builtin;  // __syncthreads, __ldg
    if (w.starts_with("atomic") || w.starts_with("cp_async") || w == "wmma" || w == "mma_sync")
        return SyntaxClass::Builtin;
    return SyntaxClass::Plain;
}

// Length of a numeric literal at s[i]: 42, 0x1F, 1.5e-3f, 128u, and PTX's 0f3F800000.
int numberLength(std::string_view s, std::size_t i) {
    std::size_t j = i;
    if (j + 1 < s.size() && s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X' || s[j + 1] == 'f' || s[j + 1] == 'F' ||
                                            s[j + 1] == 'd' || s[j + 1] == 'D')) {
        j += 2;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
    } else {
        while (j < s.size() && (isDigit(s[j]) || s[j] == '.')) ++j;
        if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
            ++j;
            if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
            while (j < s.size() && isDigit(s[j])) ++j;
        }
    }
    while (j < s.size() && (s[j] == 'u' || s[j] == 'U' || s[j] == 'l' || s[j] == 'L' || s[j] == 'f' || s[j] == 'F')) ++j;
    return static_cast<int>(j - i);
}

int quotedLength(std::string_view s, std::size_t i) {
    const char q = s[i];
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != q) j += (s[j] == '\\') ? 2 : 1;
    return static_cast<int>(std::min(j + 1, s.size()) - i);
}

void push(std::vector<SyntaxToken>& out, std::size_t start, std::size_t len, SyntaxClass cls) {
    if (len == 0) return;
    out.push_back({static_cast<int>(start), static_cast<int>(len), cls});
}

// A /* */ comment from start (its opening, or the line's start when it continues one); the closing
// "*/" is searched from `from`. Returns the index after the comment, or the line's end.
std::size_t blockComment(std::string_view s, std::size_t start, std::size_t from, bool& inBlock,
                         std::vector<SyntaxToken>& out) {
    const std::size_t end = s.find("*/", from);
    const std::size_t stop = end == std::string_view::npos ? s.size() : end + 2;
    inBlock = end == std::string_view::npos;
    push(out, start, stop - start, SyntaxClass::Comment);
    return stop;
}

// Blanks and comments, which CUDA and PTX write alike: true when one starts at i, with i moved past
// it (past the line's end for a line comment, which runs to it).
bool skipBlankOrComment(std::string_view s, std::size_t& i, bool& inBlock, std::vector<SyntaxToken>& out) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
        ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
        push(out, i, s.size() - i, SyntaxClass::Comment);
        i = s.size();
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
        i = blockComment(s, i, i + 2, inBlock, out);
    } else {
        return false;
    }
    return true;
}

// [SECTION] CUDA

void tokenizeCuda(std::string_view s, bool& inBlock, std::vector<SyntaxToken>& out) {
    std::size_t i = 0;
    if (inBlock) i = blockComment(s, 0, 0, inBlock, out);
    bool afterInclude = false;
    while (i < s.size()) {
        if (skipBlankOrComment(s, i, inBlock, out)) continue;
        const char c = s[i];
        if (c == '#' && s.find_first_not_of(" \t") == i) {
            std::size_t j = i + 1;
            while (j < s.size() && (s[j] == ' ')) ++j;
            while (j < s.size() && isIdentChar(s[j])) ++j;
            afterInclude = s.substr(i, j - i).find("include") != std::string_view::npos;
            push(out, i, j - i, SyntaxClass::Preprocessor);
            i = j;
        } else if (c == '"' || c == '\'') {
            const int n = quotedLength(s, i);
            push(out, i, n, SyntaxClass::String);
            i += n;
        } else if (c == '<' && afterInclude) {
            const std::size_t end = s.find('>', i);
            const std::size_t n = (end == std::string_view::npos ? s.size() : end + 1) - i;
            push(out, i, n, SyntaxClass::String);
            i += n;
        } else if (isDigit(c) || (c == '.' && i + 1 < s.size() && isDigit(s[i + 1]))) {
            const int n = numberLength(s, i);
            push(out, i, n, SyntaxClass::Number);
            i += n;
        } else if (isIdentStart(c)) {
            std::size_t j = i;
            while (j < s.size() && isIdentChar(s[j])) ++j;
            push(out, i, j - i, classifyCudaWord(s.substr(i, j - i)));
            i = j;
        } else {
            std::size_t j = i + 1;
            while (j < s.size() && std::ispunct(static_cast<unsigned char>(s[j])) && s[j] != '"' && s[j] != '\'' &&
                   s[j] != '_' && s[j] != '/' && s[j] != '#')
                ++j;
            push(out, i, j - i, SyntaxClass::Punctuation);
            i = j;
        }
    }
}

// [SECTION] PTX

bool isPtxWordChar(char c) { return isIdentChar(c) || c == '.' || c == '$'; }

void tokenizePtx(std::string_view s, bool& inBlock, std::vector<SyntaxToken>& out) {
    std::size_t i = 0;
    if (inBlock) i = blockComment(s, 0, 0, inBlock, out);
    bool expectOpcode = true;  // the first word of a statement is its opcode
    while (i < s.size()) {
        if (skipBlankOrComment(s, i, inBlock, out)) continue;
        const char c = s[i];
        if (c == '"') {
            const int n = quotedLength(s, i);
            push(out, i, n, SyntaxClass::String);
            i += n;
        } else if (c == '%') {
            std::size_t j = i + 1;
            while (j < s.size() && isPtxWordChar(s[j])) ++j;
            push(out, i, j - i, SyntaxClass::Register);
            i = j;
        } else if (c == '.' && i + 1 < s.size() && isIdentStart(s[i + 1])) {
            std::size_t j = i + 1;
            while (j < s.size() && isPtxWordChar(s[j])) ++j;
            push(out, i, j - i, SyntaxClass::Directive);
            expectOpcode = false;
            i = j;
        } else if (isDigit(c) || (c == '-' && i + 1 < s.size() && isDigit(s[i + 1]))) {
            const int n = numberLength(s, c == '-' ? i + 1 : i) + (c == '-' ? 1 : 0);
            push(out, i, n, SyntaxClass::Number);
            i += n;
        } else if (isIdentStart(c) || c == '$') {
            std::size_t j = i;
            while (j < s.size() && isPtxWordChar(s[j])) ++j;
            if (j < s.size() && s[j] == ':') {
                push(out, i, j + 1 - i, SyntaxClass::Label);
                i = j + 1;
                continue;  // an opcode may follow a label on the same line
            }
            SyntaxClass cls = SyntaxClass::Plain;
            if (c == '$') cls = SyntaxClass::Label;  // a branch target
            else if (expectOpcode) cls = SyntaxClass::Builtin;
            push(out, i, j - i, cls);
            expectOpcode = false;
            i = j;
        } else {
            // '@' (predicate guard) and braces keep the next word in opcode position.
            if (c == ';') expectOpcode = true;
            push(out, i, 1, SyntaxClass::Punctuation);
            ++i;
        }
    }
}

}  // namespace

void tokenizeLine(std::string_view line, CodeLanguage language, bool& inBlockComment,
                  std::vector<SyntaxToken>& out) {
    switch (language) {
    case CodeLanguage::Cuda: tokenizeCuda(line, inBlockComment, out); break;
    case CodeLanguage::Ptx: tokenizePtx(line, inBlockComment, out); break;
    case CodeLanguage::Plain: push(out, 0, line.size(), SyntaxClass::Plain); break;
    }
}

}  // namespace kx::app
