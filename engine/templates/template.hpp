// A loaded template: manifest plus kernel source, with the operations that turn a Config into a
// verdict, a name and source code.
#pragma once

#include "arch/arch.hpp"
#include "templates/config.hpp"
#include "templates/manifest.hpp"
#include "templates/shared_pieces.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kx::engine {

struct Violation {
    std::string message;  // the manifest's message with {NAME}s filled in
    std::string expr;     // the constraint that failed, as written
    int line = 0;         // manifest line
};

struct LaunchGeometry {
    std::string kernel;  // the entry point this geometry launches
    long long grid[3] = {1, 1, 1};
    long long block[3] = {1, 1, 1};
    long long cluster[3] = {1, 1, 1};  // blocks per thread-block cluster; the grid is a multiple
    long long dynamicSmemBytes = 0;
    bool persistent = false;  // the runner shrinks grid-x to the blocks the device holds at once
    long long threadsPerBlock() const { return block[0] * block[1] * block[2]; }
    long long blocks() const { return grid[0] * grid[1] * grid[2]; }
};

using SizeMap = std::map<std::string, long long>;

// A kernel argument with its type and element count worked out for a config and sizes.
struct ResolvedArg {
    std::string name;
    std::string role;   // in, out, inout, scratch, size, scalar, pass, tensor_map
    std::string type;   // C type with placeholders filled: "__half", "float", "int"
    long long count = 0;  // elements (buffers); the value itself for sizes
    double value = 0;     // scalars
    std::string fill;     // in/inout: the fill rule with placeholders filled (empty: the default)
    bool zeroEachRun = false;
    // tensor_map: the buffer it describes, its dimensions and box (innermost first), swizzle;
    // im2col mode: the bounding box's corners and the traversal strides (manifest.hpp).
    std::string of;
    std::string mode;
    std::vector<long long> dims, box, lower, upper, strides;
    std::string swizzle;
};

// One kernel of the launch sequence, worked out for a config and sizes.
struct LaunchStep {
    std::string kernel;      // the entry point: "reduce_sum_f32_b256_i4_v4" or "..._upsweep"
    long long repeat = 1;
    bool primary = false;    // the kernel the occupancy and resource views describe
    bool persistent = false; // the runner caps grid-x at the blocks the device holds at once
    bool prepare = false;    // run once per input set before the checked run, never timed
    LaunchGeometry geometry;
};

// A baseline to request, worked out: parameters as numbers or text.
struct ResolvedBaseline {
    std::string name;
    std::vector<std::string> args;
    std::string output;
    std::map<std::string, double> numbers;
    std::map<std::string, std::string> texts;
};

class Template {
public:
    Template(TemplateManifest manifest, std::string kernelSource, SharedPieces pieces = {});
    // One source per language ("cuda", "hip"); the manifest's sourceFile's language comes first.
    // pieces: the shared pieces (templates/common/) the sources include, read at load.
    Template(TemplateManifest manifest, std::map<std::string, std::string> sourcesByLanguage, SharedPieces pieces = {});

    const TemplateManifest& manifest() const { return m_manifest; }
    const std::string& id() const { return m_manifest.id; }
    const std::string& kernelSource() const { return m_kernelSource; }
    // The source of a language; empty when the template has none.
    const std::string& kernelSource(const std::string& language) const;
    bool hasLanguage(const std::string& language) const { return m_sources.count(language) > 0; }
    // The pieces its sources include, shared ("common/NAME.cuh") and its own ("NAME.cuh"), by name.
    const SharedPieces& pieces() const { return m_pieces; }
    // The language an arch compiles: "hip" on AMD arches when the template has a HIP source,
    // else "cuda".
    std::string languageFor(const Arch& arch) const;

    Config defaultConfig() const;

    // Returns base with each "KEY" set to "VALUE". Throws InputError naming the key when it is
    // not a parameter, and naming the value and what is allowed when the value is not allowed.
    Config withValues(const Config& base, const std::map<std::string, std::string>& overrides) const;

    // Every violated constraint for this arch, in manifest order, then the compiler flags' problem
    // (compileFlagsProblem; line 0) when they have one. Empty means valid.
    // Throws InputError when the config is not of this template.
    std::vector<Violation> validate(const Config& config, const Arch& arch) const;

    // The parameters that have no effect for this config (their `applies` is 0: conv_wgmma's
    // SPLITK outside bwd_weight), in manifest order; what the editor dims. A config whose
    // expressions cannot be evaluated has none.
    std::vector<const ParamSpec*> inactiveParams(const Config& config, const Arch& arch) const;

    // The procedural name from the manifest's name pattern: "gemm_f16_rcr_128x128x32_w64x64_s2",
    // with the flags' suffix when they are not the defaults ("..._s2_r64_fm"). It is also the
    // kernel's entry point (${KERNEL_NAME}), so two variants never share a kernel name.
    std::string configName(const Config& config) const;

    // Every variable an expression may use: parameters (bool as 0/1), the chosen enum values'
    // numeric attributes, the arch's variables, derived values, and sizes when given.
    std::map<std::string, double> variables(const Config& config, const Arch& arch,
                                            const SizeMap& sizes = {}) const;

    // The kernel source with every ${NAME} replaced and each shared piece's include line replaced
    // by the piece (its ${NAME}s replaced too). Throws InputError when a placeholder names nothing
    // known or a piece was not loaded. Does not check constraints. Renders languageFor(arch).
    std::string render(const Config& config, const Arch& arch) const;
    // The named language's source; throws InputError when the template has none in it.
    std::string render(const Config& config, const Arch& arch, const std::string& language) const;

    SizeMap defaultSizes() const;
    // The sizes the [gpu] tests run: one map per test run (see SizeSpec::testValues); just the
    // defaults when no size lists test values.
    std::vector<SizeMap> testSizes() const;
    // The problem of the [gpu] test past 2^31 bytes: each size's large value (SizeSpec), the
    // default where it has none; empty when no size has one.
    SizeMap largeTestSizes() const;
    // Fills missing sizes with defaults; throws InputError on an unknown size or one below its minimum.
    SizeMap withSizes(const std::map<std::string, std::string>& overrides) const;

    // The kernel's arguments in signature order. Throws InputError on an unknown size name.
    std::vector<ResolvedArg> resolveArgs(const Config& config, const Arch& arch, const SizeMap& sizes) const;

    // The manifest's <quantity>s for these sizes, in order (name, value): a conv's implicit GEMM
    // M, N and K. Throws InputError naming the manifest line when one cannot be evaluated.
    std::vector<std::pair<std::string, double>> quantities(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    // Why this config cannot run the problem (a <requirement> it breaks, a quantity it makes
    // impossible), in words; empty when it can.
    std::string problemRefusal(const Config& config, const Arch& arch, const SizeMap& sizes) const;

    // The first kernel's geometry (what occupancy and resources describe).
    LaunchGeometry launch(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    // Every kernel of the sequence, in order. Throws InputError on a repeat below 0.
    std::vector<LaunchStep> launches(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    // The manifest's baselines with their parameters evaluated (FLOPS and BYTES are the formulas).
    std::vector<ResolvedBaseline> baselines(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    // The compute roof the kernel runs on for this config ("fp32", "fp16_tensor").
    std::string rooflineUnit(const Config& config, const Arch& arch) const;
    double flops(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    double minBytes(const Config& config, const Arch& arch, const SizeMap& sizes) const;
    // True when the manifest declares <traffic bytes="..."/>.
    bool hasTrafficModel() const { return !m_manifest.trafficExpr.empty(); }
    // The DRAM bytes the kernel moves for this config: the manifest's traffic formula, never below
    // minBytes (no kernel moves less than the compulsory bytes); minBytes when there is no formula.
    // l2Bytes > 0 replaces the arch's l2_bytes (the L2 of the device the roofline is drawn for).
    // Throws InputError naming the manifest line when the formula cannot be evaluated.
    double trafficBytes(const Config& config, const Arch& arch, const SizeMap& sizes, long long l2Bytes = 0) const;

private:
    // Text for every ${NAME}: parameters, choice attributes, derived values, KERNEL_NAME, ARCH,
    // WARP_SIZE (the arch's warp or wave size).
    std::map<std::string, std::string> placeholderValues(const Config& config, const Arch& arch) const;
    // Replaces ${NAME}s in text; where names the text in errors ("file:line: ").
    static std::string substitute(const std::string& text, const std::map<std::string, std::string>& values,
                                  const std::string& where, int firstLine);
    // substitute() over a whole source, each shared piece's include line replaced by the piece.
    std::string renderSource(const std::string& source, const std::map<std::string, std::string>& values,
                             const std::string& where) const;

    TemplateManifest m_manifest;
    std::string m_kernelSource;
    std::map<std::string, std::string> m_sources;  // by language, m_kernelSource included
    SharedPieces m_pieces;
};

}  // namespace kx::engine
