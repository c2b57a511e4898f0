// A template's manifest: the data in templates/<id>/manifest.xml, parsed but not evaluated.
// The format is documented in templates/README.md.
#pragma once

#include "templates/visual_spec.hpp"

#include <map>
#include <optional>
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
    // Where the parameter has an effect: an expression over the config (parameters, choices'
    // attributes, derived values, the arch), empty for everywhere; appliesHelp says where in words
    // ("bwd_weight only"). The editor dims a parameter whose expression is 0 for the config.
    std::string applies, appliesHelp;
    int line = 0;
};

// A named value computed from an expression: a derived value or a problem quantity.
struct NamedExprSpec {
    std::string name;
    std::string expr;
    std::string help;
    int line = 0;
};

// A value computed from parameters, choice attributes, arch limits and earlier derived values.
using DerivedSpec = NamedExprSpec;

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
    // Awkward values the [gpu] tests run (tests="1,1009,100003"): 1, primes, not a multiple of
    // any tile. The k-th test run takes each size's k-th value (its last when it has fewer).
    std::vector<long long> testValues;
    // The value of the [gpu] test past 2^31 bytes (large="536870923"; 0: none), where a buffer
    // of the problem can outgrow 32-bit byte offsets. That test takes every size's large value,
    // and the default where a size has none.
    long long largeValue = 0;
    int line = 0;
};

// A value computed from the problem sizes (and the config): a conv's output height, its implicit
// GEMM's M, N and K. A variable wherever sizes are (args, launch, flops, bytes, baselines, the
// tile view), evaluated in order after the derived values; shown beside the sizes.
using QuantitySpec = NamedExprSpec;

// One kernel argument, in signature order, for the runner.
struct ArgSpec {
    std::string name;
    // "in", "out", "inout" (device buffers), "scratch" (a zeroed device buffer), "size" (a problem
    // size passed as int), "scalar" (value passed by value), "pass" (the repeat index of the launch),
    // "tensor_map" (a CUtensorMap of another buffer arg, passed by value)
    std::string role;
    std::string type;     // element type for buffers (may use ${...}), C type for scalars
    std::string count;    // expression: number of elements, for buffers
    std::string fill;     // in/inout: the fill rule (run/input_fill.hpp); empty: the dtype's default
    std::string value;    // scalar: expression
    bool zeroEachRun = false;  // scratch: zeroed before every timed run (zero="each"), not once
    // tensor_map (a TMA descriptor of the buffer arg `of`, encoded by the runner): dimensions and
    // box, innermost first, as expressions; swizzle none, 32B, 64B or 128B. Mode "tile" copies
    // boxes; "im2col" copies a column of pixels (box = channels per pixel, pixels) walking a
    // bounding box whose corners `lower` and `upper` (spatial dimensions, innermost first) are
    // offsets from the image's; `strides` are the traversal steps of every dimension (default 1).
    std::string of;
    std::string mode = "tile";
    std::vector<std::string> dims, box, lower, upper, strides;
    std::string swizzle;
    int line = 0;
};

struct LaunchSpec {
    std::string kernel;   // suffix of the entry point: ${KERNEL_NAME}_<kernel>; empty: ${KERNEL_NAME}
    std::string repeat = "1";  // expression: times in a row
    std::string grid[3] = {"1", "1", "1"};
    std::string block[3] = {"1", "1", "1"};
    std::string cluster[3] = {"1", "1", "1"};  // blocks per thread-block cluster (sm_90+); grid a multiple
    std::string dynamicSmem = "0";
    bool primary = false;      // primary="true": the kernel that does the work (occupancy describes it)
    // prepare="true": run once per input set after the upload, before the checked run and
    // outside the timing (a data layout the kernel reads, such as a preshuffled operand).
    bool prepare = false;
    // Expression; nonzero: a persistent launch. The runner caps grid-x at the blocks the device
    // holds at once (its SMs times the blocks per SM the driver reports), and the kernel walks
    // the rest of its grid-x with a stride of the grid.
    std::string persistent = "0";
    int line = 0;
};

// A named baseline of kx-runner's, timed in the same run (see templates/README.md).
struct BaselineParamSpec {
    std::string name;
    std::string text;     // value="...": text with placeholders (isText)
    std::string expr;     // expr="...": a number
    bool isText = false;
};
struct BaselineSpec {
    std::string name;                 // the runner's name: "cublas_gemm", "copy", "cub_scan"
    std::vector<std::string> args;    // kernel args lent to it, in its order
    std::string output;               // a kernel arg shaped like its result, or empty
    std::vector<BaselineParamSpec> params;
    int line = 0;
};

struct TemplateManifest {
    std::string id;            // folder name: "gemm"
    std::string title;
    std::string summary;
    std::string category;      // "Linear algebra", "Reductions", ...
    std::vector<std::string> languages;  // "cuda", "hip": one <source> each
    std::string sourceFile;    // kernel source, relative to the folder (the first <source>: CUDA)
    // Every kernel source by language: <source file="reduce.cu"/> is CUDA, <source file=
    // "reduce.hip" lang="hip"/> the HIP flavour. Holds sourceFile under its language.
    std::map<std::string, std::string> sourceFiles;
    std::map<std::string, int> sourceFileLines;  // manifest line of each <source>
    int sourceLine = 0;        // manifest line of <source>
    std::string namePattern;   // "gemm_{dtype}_{BM}x{BN}x{BK}": letters, digits, '_' and {PARAM}s
    int namePatternLine = 0;
    std::vector<ParamSpec> params;
    std::vector<DerivedSpec> derived;
    std::vector<ConstraintSpec> constraints;
    std::vector<SizeSpec> sizes;
    std::vector<QuantitySpec> quantities;  // <problem><quantity>s, in order
    // <problem><requirement expr="..." message="..."/>s: what a problem must satisfy for this
    // kernel (channel counts the TMA can copy, a stride the direction supports), checked with the
    // sizes and the config; a problem that breaks one is refused with its message.
    std::vector<ConstraintSpec> requirements;
    std::vector<ArgSpec> args;
    std::vector<LaunchSpec> launches;   // in order; at least one
    std::vector<BaselineSpec> baselines;
    std::string rooflineUnit = "fp32"; // DeviceSpec unit of the compute roof; may use ${...}
    std::string flopsExpr = "0";
    std::string bytesExpr = "0";
    // <traffic bytes="..."/>: the DRAM bytes the kernel moves for this config (tile re-reads, L2
    // reuse); empty: the template has no traffic model and its traffic is bytesExpr.
    std::string trafficExpr;
    int trafficLine = 0;
    std::string referenceName; // the CPU reference (run/reference_registry.hpp); empty: none
    std::optional<VisualSpec> visual;  // <visual>: how the tile view draws it; none: no tile view
    std::string folder;        // absolute folder path
    std::string manifestFile;  // absolute manifest path

    const ParamSpec* findParam(const std::string& name) const;
};

// A tensor map's swizzle: none, 32B, 64B or 128B.
bool isTensorMapSwizzle(const std::string& swizzle);

}  // namespace kx::engine
