// Tutorials as data: tutorials/<id>/tutorial.xml, a chain of steps, each with prose (prose.hpp),
// "Show me" actions that drive the app, checkpoints judged on the app's or a session's state
// (checkpoint.hpp), hints, and the run of the step's kernel recorded on a real GPU.
// The format is documented in tutorials/README.md.
//
// [SECTION] File format, in short
//   <tutorial id="first_kernel" title="..." order="1">
//     <summary>one or two sentences</summary>
//     <step id="launch" title="...">
//       <prose>Markdown subset</prose>
//       <action label="Show me">            one button: its operations run in order
//         <select template="map" arch="sm_90"/>   template (config reset to defaults) and/or arch
//         <set values="BLOCK=256,VEC=1"/>          parameters
//         <open view="ptx"/>                       a code tab (source, ptx, log) or a view by title
//         <run/>                                   run the current variant (needs a GPU)
//         <compare a="VEC=1" b="VEC=4"/>           keep both configs (on the current one) and diff them
//       </action>
//       <checkpoint metric="registers" max="64" label="..." hint="..."/>
//       <hint>text</hint>
//       <recorded device="NVIDIA H100 80GB HBM3" date="2026-11-25" source="bench/results/..."
//                 median-ms="0.266" gbps="3023" pct-copy="101"/>
//     </step>
//   </tutorial>
#pragma once

#include "templates/compile_flags.hpp"
#include "tutorial/prose.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

class TemplateLibrary;
class ArchDatabase;

// [SECTION] Actions

struct ActionOp {
    enum class Kind { Select, Set, Size, Open, Run, Compare, Flags };
    Kind kind = Kind::Select;
    std::string templateId;                     // Select: may be empty (arch only)
    std::string arch;                           // Select: may be empty (template only)
    std::map<std::string, std::string> values;  // Set: parameters; Size: problem sizes (the Run panel's)
    std::string view;                           // Open: "source", "ptx", "log", or a view's title
    std::map<std::string, std::string> a, b;    // Compare: the two configs, over the current one
    CompileFlags flags;                         // Flags: the variant's compiler flags from now on (a select resets them)
    int line = 0;
};

struct TutorialAction {
    std::string label;
    std::vector<ActionOp> ops;
    int line = 0;
    bool needsGpu() const;  // holds a Run
};

// [SECTION] Checkpoints

enum class Metric {
    Template,       // equals: the template id
    Arch,           // equals: the arch name
    Config,         // param + equals: a parameter's value
    Compiled,       // PTX and the ptxas report are there for the current config
    Registers,      // max: registers per thread of the primary kernel
    Spills,         // max (usually 0): spill bytes stored + loaded
    Occupancy,      // min: theoretical occupancy, percent
    MixContains,    // text: a PTX instruction whose opcode starts with or has the component `text`
    MixLacks,       // text: no such instruction
    RunPassed,      // the latest run of the current config passed its check      (needs a GPU)
    PctCopy,        // min: percent of the device's copy bandwidth                   (needs a GPU)
    PctBaseline,    // min: percent of the speed of the first baseline of the run    (needs a GPU)
    PctRoof,        // min: percent of the roofline at the run's own intensity         (needs a GPU)
    Gflops,         // min: GFLOP/s of the latest run                                (needs a GPU)
    Speedup,        // over + min: throughput over that of an earlier step's run     (needs a GPU)
};

// "config", "registers", ... (the attribute's spelling) and back.
const char* metricName(Metric metric);
std::optional<Metric> parseMetric(std::string_view name);
bool metricNeedsRun(Metric metric);

struct Checkpoint {
    Metric metric = Metric::Compiled;
    std::string param;                 // Config
    std::string equals;                // Template, Arch, Config
    std::string text;                  // MixContains, MixLacks
    std::optional<double> min, max;    // bounds
    std::string over;                  // Speedup: an earlier step's id
    std::string baseline;              // PctBaseline: the runner's id of the baseline it is of (empty: the run's first)
    std::string label;                 // what it checks, in words (generated when absent)
    std::string hint;                  // shown while it fails
    int line = 0;
};

// [SECTION] Recorded runs: what the step's kernel did on a real GPU, shipped with the tutorial so
// a learner without one sees real figures, labelled as recorded.
struct RecordedRun {
    std::string device;                // "NVIDIA H100 80GB HBM3"
    std::string date;                  // "2026-11-25"
    std::string source;                // the results file the figures come from
    std::string variant;               // the config's procedural name
    std::optional<double> medianMs, gflops, gbps, pctCopy, pctBaseline, pctRoof;
    std::string baseline;              // what pctBaseline is of: "cuBLAS f32"
    std::string roof;                  // what pctRoof is of: "DRAM roof, NVIDIA H100 SXM5 80GB datasheet"
    bool passed = true;
    int line = 0;

    std::string summary() const;       // "0.266 ms, 3023 GB/s, 101% of copy bandwidth"
};

// [SECTION] Tutorials

struct TutorialStep {
    std::string id;
    std::string title;
    std::vector<ProseBlock> prose;
    std::vector<TutorialAction> actions;
    std::vector<Checkpoint> checkpoints;
    std::vector<std::string> hints;
    std::optional<RecordedRun> recorded;
    int line = 0;
};

struct Tutorial {
    std::string id;
    std::string title;
    std::string summary;
    int order = 0;                     // place in the learning path
    std::vector<TutorialStep> steps;
    std::filesystem::path folder;
    std::filesystem::path file;

    // The step's index; -1 when none has this id.
    int stepIndex(std::string_view stepId) const;
};

// Parses one tutorial.xml. Throws InputError "file:line: reason" on a malformed file, an unknown
// element, metric or action, a missing attribute, a duplicate step id, a speed-up over a step that
// is not earlier, or a bad image in the prose.
Tutorial parseTutorial(const std::filesystem::path& file);

struct TutorialLoadError {
    std::filesystem::path file;
    std::string message;  // "file:line: reason"
};

class TutorialLibrary {
public:
    // Every folder of dir holding a tutorial.xml, by order then id. A malformed tutorial is
    // recorded in errors() and skipped; a missing dir gives an empty library.
    static TutorialLibrary load(const std::filesystem::path& dir);

    const std::vector<std::shared_ptr<const Tutorial>>& tutorials() const { return m_tutorials; }
    const std::vector<TutorialLoadError>& errors() const { return m_errors; }
    std::shared_ptr<const Tutorial> find(std::string_view id) const;  // nullptr when unknown

private:
    std::vector<std::shared_ptr<const Tutorial>> m_tutorials;
    std::vector<TutorialLoadError> m_errors;
};

// [SECTION] Playing a tutorial through without a GUI

// What the editor holds after a step's actions ran, when every action of every step up to it ran
// in order from the template's defaults.
struct StepTarget {
    std::string templateId;            // empty when no action selected one yet
    std::string arch;
    std::map<std::string, std::string> config;  // every parameter (defaults filled in)
    std::string flags;                          // compiler flags, canonical ("" for the defaults)
};

// The targets of every step, in order. Throws InputError "file:line: reason" when an action names
// an unknown template, arch, parameter or value, or leaves a config that breaks the template's
// constraints for the arch (each violated constraint named).
std::vector<StepTarget> stepTargets(const Tutorial& tutorial, const TemplateLibrary& templates, const ArchDatabase& arches);

}  // namespace kx::engine
