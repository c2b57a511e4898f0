// A template's manifest: the data in templates/<id>/manifest.xml, parsed but not evaluated.
// The format is documented in templates/README.md.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kx::engine {

enum class ParamType { Int, Bool, Enum };

struct EnumChoice {
    std::string name;                               // "f16"
    std::string help;
    std::map<std::string, std::string> attributes;  // ctype="__half" elem_bytes="2"
};

struct ParamSpec {
    std::string name;     // identifier used in expressions and placeholders: "BM"
    std::string label;    // shown in the UI: "Tile M"
    std::string help;
    std::string group;    // UI grouping: "Block tile", "Warp tile", ...
    ParamType type = ParamType::Int;
    std::vector<long long> allowed;   // Int: the allowed values; empty means a range
    long long minValue = 0;           // Int range (inclusive) when allowed is empty
    long long maxValue = 0;
    std::vector<EnumChoice> choices;  // Enum
    std::string defaultValue;         // canonical text: "128", "true", "f16"
    int line = 0;
};

// A value computed from parameters, choice attributes, arch limits and earlier derived values.
struct DerivedSpec {
    std::string name;
    std::string expr;
    std::string help;
    int line = 0;
};

// Holds when expr evaluates non-zero. message may use {NAME} for any variable.
struct ConstraintSpec {
    std::string expr;
    std::string message;
    int line = 0;
};

// A run-time problem size (not part of the config): M, N, K, n.
struct SizeSpec {
    std::string name;
    std::string help;
    long long defaultValue = 1;
    long long minValue = 1;
    int line = 0;
};

// One kernel argument, in signature order, for the runner.
struct ArgSpec {
    std::string name;
    std::string role;     // "in", "out", "inout" (device buffers) or "size" (a scalar problem size)
    std::string type;     // element type for buffers (may use ${...}), C type for scalars
    std::string count;    // expression: number of elements, for buffers
    int line = 0;
};

struct LaunchSpec {
    std::string grid[3] = {"1", "1", "1"};
    std::string block[3] = {"1", "1", "1"};
    std::string dynamicSmem = "0";
};

struct TemplateManifest {
    std::string id;            // folder name: "gemm"
    std::string title;
    std::string summary;
    std::string category;      // "Linear algebra", "Reductions", ...
    std::vector<std::string> languages;  // "cuda", "hip"
    std::string sourceFile;    // kernel source, relative to the folder
    std::string namePattern;   // "gemm_{dtype}_{BM}x{BN}x{BK}"
    std::vector<ParamSpec> params;
    std::vector<DerivedSpec> derived;
    std::vector<ConstraintSpec> constraints;
    std::vector<SizeSpec> sizes;
    std::vector<ArgSpec> args;
    LaunchSpec launch;
    std::string flopsExpr = "0";
    std::string bytesExpr = "0";
    std::string referenceName; // CPU reference the runner uses: "gemm", "reduce"
    std::string folder;        // absolute folder path
    std::string manifestFile;  // absolute manifest path

    const ParamSpec* findParam(const std::string& name) const;
};

}  // namespace kx::engine
