#include "tutorial/tutorial.hpp"

#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace kx::engine {
namespace fs = std::filesystem;
using tinyxml2::XMLElement;

namespace {

constexpr const char* kDefaultArch = "sm_90";

// What <open view="..."/> may name: the code tabs, then the app's views by title (lower case).
constexpr std::string_view kViews[] = {"source", "ptx", "log", "occupancy", "roofline", "instruction mix",
                                       "resources", "launch", "run", "variants", "compare", "tiles"};

struct MetricInfo {
    Metric metric;
    const char* name;
    bool needsRun;
};
constexpr MetricInfo kMetrics[] = {
    {Metric::Template, "template", false},      {Metric::Arch, "arch", false},
    {Metric::Config, "config", false},          {Metric::Compiled, "compiled", false},
    {Metric::Registers, "registers", false},    {Metric::Spills, "spills", false},
    {Metric::Occupancy, "occupancy", false},    {Metric::MixContains, "mix-contains", false},
    {Metric::MixLacks, "mix-lacks", false},     {Metric::RunPassed, "run-passed", true},
    {Metric::PctCopy, "pct-copy", true},        {Metric::PctBaseline, "pct-baseline", true},
    {Metric::PctRoof, "pct-roof", true},
    {Metric::Gflops, "gflops", true},           {Metric::Speedup, "speedup", true},
};

std::string metricList() {
    std::string out;
    for (const MetricInfo& m : kMetrics) out += std::string(out.empty() ? "" : ", ") + m.name;
    return out;
}

// Errors in a tutorial always carry "file:line: ".
[[noreturn]] void fail(const fs::path& file, int line, const std::string& message) {
    throw InputError(file.string() + ":" + std::to_string(line) + ": " + message);
}

std::string attr(const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    return v ? std::string(v) : std::string();
}

std::string requiredAttr(const fs::path& file, const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    if (!v || !*v) fail(file, e->GetLineNum(), std::string("<") + e->Name() + "> needs attribute '" + name + "'");
    return v;
}

// Only the attributes listed are allowed: a misspelt one (mni="2") would silently check nothing.
void allowAttributes(const fs::path& file, const XMLElement* e, std::initializer_list<const char*> allowed) {
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char* n) { return std::string_view(n) == a->Name(); })) {
            std::string list;
            for (const char* n : allowed) list += std::string(list.empty() ? "" : ", ") + n;
            fail(file, e->GetLineNum(), fmt::format("<{}> has an unknown attribute '{}' (allowed: {})", e->Name(), a->Name(), list));
        }
    }
}

std::optional<double> number(const fs::path& file, const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    if (!v) return std::nullopt;
    const std::string text = v;
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        fail(file, e->GetLineNum(), fmt::format("<{}> {}=\"{}\" is not a number", e->Name(), name, text));
    return value;
}

// "BM=64, BN=128" -> {BM: 64, BN: 128}.
std::map<std::string, std::string> assignments(const fs::path& file, int line, const std::string& text) {
    std::map<std::string, std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, comma - start);
        item.erase(0, item.find_first_not_of(" \t\n"));
        item.erase(item.find_last_not_of(" \t\n") + 1);
        if (!item.empty()) {
            const auto eq = item.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
                fail(file, line, "expected KEY=VALUE, got '" + item + "'");
            out[item.substr(0, eq)] = item.substr(eq + 1);
        }
        start = comma + 1;
    }
    if (out.empty()) fail(file, line, "no KEY=VALUE given");
    return out;
}

// The element's text with its first line's number: TinyXML2 numbers elements, not text nodes,
// so count the newlines between the element's start and its text.
std::pair<std::string, int> textWithLine(const XMLElement* e) {
    const char* t = e->GetText();
    return {t ? std::string(t) : std::string(), e->GetLineNum()};
}

std::string foldedText(const XMLElement* e) { return foldWhitespace(textWithLine(e).first); }

ActionOp parseOp(const fs::path& file, const XMLElement* e) {
    ActionOp op;
    op.line = e->GetLineNum();
    const std::string name = e->Name();
    if (name == "select") {
        allowAttributes(file, e, {"template", "arch"});
        op.kind = ActionOp::Kind::Select;
        op.templateId = attr(e, "template");
        op.arch = attr(e, "arch");
        if (op.templateId.empty() && op.arch.empty()) fail(file, op.line, "<select> needs template=\"...\", arch=\"...\" or both");
    } else if (name == "set") {
        allowAttributes(file, e, {"values"});
        op.kind = ActionOp::Kind::Set;
        op.values = assignments(file, op.line, requiredAttr(file, e, "values"));
    } else if (name == "size") {
        allowAttributes(file, e, {"values"});
        op.kind = ActionOp::Kind::Size;
        op.values = assignments(file, op.line, requiredAttr(file, e, "values"));
    } else if (name == "open") {
        allowAttributes(file, e, {"view"});
        op.kind = ActionOp::Kind::Open;
        op.view = requiredAttr(file, e, "view");
        if (std::find(std::begin(kViews), std::end(kViews), op.view) == std::end(kViews)) {
            std::string list;
            for (std::string_view v : kViews) list += std::string(list.empty() ? "" : ", ") + std::string(v);
            fail(file, op.line, "unknown view '" + op.view + "' (" + list + ")");
        }
    } else if (name == "run") {
        allowAttributes(file, e, {});
        op.kind = ActionOp::Kind::Run;
    } else if (name == "compare") {
        allowAttributes(file, e, {"a", "b"});
        op.kind = ActionOp::Kind::Compare;
        op.a = assignments(file, op.line, requiredAttr(file, e, "a"));
        op.b = assignments(file, op.line, requiredAttr(file, e, "b"));
    } else if (name == "flags") {
        allowAttributes(file, e, {"values"});
        op.kind = ActionOp::Kind::Flags;
        const std::string values = requiredAttr(file, e, "values");
        try {
            op.flags = parseCompileFlags(values);
        } catch (const InputError& err) {
            fail(file, op.line, err.what());
        }
    } else {
        fail(file, op.line, "unknown action '" + name + "' (select, set, size, open, run, compare, flags)");
    }
    return op;
}

std::string defaultLabel(const Checkpoint& c) {
    auto num = [](double v) { return fmt::format("{:g}", v); };
    switch (c.metric) {
    case Metric::Template: return "template is " + c.equals;
    case Metric::Arch: return "architecture is " + c.equals;
    case Metric::Config: return c.param + " = " + c.equals;
    case Metric::Compiled: return "the kernel compiles";
    case Metric::Registers: return "at most " + num(*c.max) + " registers per thread";
    case Metric::Spills: return *c.max == 0 ? "no register spills" : "spills at most " + num(*c.max) + " bytes";
    case Metric::Occupancy: return "occupancy at least " + num(*c.min) + "%";
    case Metric::MixContains: return "the PTX uses " + c.text;
    case Metric::MixLacks: return "the PTX has no " + c.text;
    case Metric::RunPassed: return "a run passes its check";
    case Metric::PctCopy: return "at least " + num(*c.min) + "% of the copy bandwidth";
    case Metric::PctBaseline:
        return "at least " + num(*c.min) + "% of the speed of " + (c.baseline.empty() ? "the baseline" : "baseline " + c.baseline);
    case Metric::PctRoof: return "at least " + num(*c.min) + "% of the roofline at its intensity";
    case Metric::Gflops: return "at least " + num(*c.min) + " GFLOP/s";
    case Metric::Speedup: return "at least " + num(*c.min) + "x faster than step '" + c.over + "'";
    }
    return metricName(c.metric);
}

Checkpoint parseCheckpoint(const fs::path& file, const XMLElement* e) {
    allowAttributes(file, e, {"metric", "param", "equals", "text", "min", "max", "over", "baseline", "label", "hint"});
    Checkpoint c;
    c.line = e->GetLineNum();
    const std::string name = requiredAttr(file, e, "metric");
    const auto metric = parseMetric(name);
    if (!metric) fail(file, c.line, "unknown metric '" + name + "' (" + metricList() + ")");
    c.metric = *metric;
    c.param = attr(e, "param");
    c.equals = attr(e, "equals");
    c.text = attr(e, "text");
    c.over = attr(e, "over");
    c.baseline = attr(e, "baseline");
    if (!c.baseline.empty() && c.metric != Metric::PctBaseline) fail(file, c.line, "baseline=\"...\" belongs to metric pct-baseline only");
    c.min = number(file, e, "min");
    c.max = number(file, e, "max");
    c.label = attr(e, "label");
    c.hint = attr(e, "hint");
    auto need = [&](bool ok, const char* what) {
        if (!ok) fail(file, c.line, fmt::format("metric '{}' needs {}", name, what));
    };
    switch (c.metric) {
    case Metric::Template:
    case Metric::Arch: need(!c.equals.empty(), "equals=\"...\""); break;
    case Metric::Config: need(!c.param.empty() && !c.equals.empty(), "param=\"...\" and equals=\"...\""); break;
    case Metric::Registers:
    case Metric::Spills: need(c.max.has_value(), "max=\"...\""); break;
    case Metric::Occupancy:
    case Metric::PctCopy:
    case Metric::PctBaseline:
    case Metric::PctRoof:
    case Metric::Gflops: need(c.min.has_value(), "min=\"...\""); break;
    case Metric::MixContains:
    case Metric::MixLacks: need(!c.text.empty(), "text=\"...\" (an instruction such as ld.shared.v4 or mma)"); break;
    case Metric::Speedup: need(!c.over.empty() && c.min.has_value(), "over=\"STEP\" and min=\"...\""); break;
    case Metric::Compiled:
    case Metric::RunPassed: break;
    }
    if (c.label.empty()) c.label = defaultLabel(c);
    return c;
}

RecordedRun parseRecorded(const fs::path& file, const XMLElement* e) {
    allowAttributes(file, e, {"device", "date", "source", "variant", "median-ms", "gflops", "gbps", "pct-copy", "pct-baseline", "baseline", "pct-roof", "roof",
                          "passed"});
    RecordedRun r;
    r.line = e->GetLineNum();
    r.device = requiredAttr(file, e, "device");
    r.date = requiredAttr(file, e, "date");
    r.source = requiredAttr(file, e, "source");
    r.variant = attr(e, "variant");
    r.medianMs = number(file, e, "median-ms");
    r.gflops = number(file, e, "gflops");
    r.gbps = number(file, e, "gbps");
    r.pctCopy = number(file, e, "pct-copy");
    r.pctBaseline = number(file, e, "pct-baseline");
    r.baseline = attr(e, "baseline");
    r.pctRoof = number(file, e, "pct-roof");
    r.roof = attr(e, "roof");
    const std::string passed = attr(e, "passed");
    if (!passed.empty() && passed != "true" && passed != "false") fail(file, r.line, "<recorded> passed must be true or false");
    r.passed = passed != "false";
    if (r.pctBaseline && r.baseline.empty()) fail(file, r.line, "<recorded> pct-baseline needs baseline=\"...\" naming what it is a percentage of");
    if (r.pctRoof && r.roof.empty()) fail(file, r.line, "<recorded> pct-roof needs roof=\"...\" naming the ceiling and the device");
    return r;
}

TutorialStep parseStep(const fs::path& file, const XMLElement* e, const Tutorial& tutorial) {
    allowAttributes(file, e, {"id", "title"});
    TutorialStep step;
    step.line = e->GetLineNum();
    step.id = requiredAttr(file, e, "id");
    step.title = requiredAttr(file, e, "title");
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
        const std::string name = c->Name();
        if (name == "prose") {
            const auto [text, line] = textWithLine(c);
            auto blocks = parseProse(text, tutorial.folder, file, line);
            step.prose.insert(step.prose.end(), blocks.begin(), blocks.end());
        } else if (name == "action") {
            allowAttributes(file, c, {"label"});
            TutorialAction action;
            action.line = c->GetLineNum();
            action.label = requiredAttr(file, c, "label");
            for (const XMLElement* o = c->FirstChildElement(); o; o = o->NextSiblingElement()) action.ops.push_back(parseOp(file, o));
            if (action.ops.empty()) fail(file, action.line, "<action> has nothing to do (select, set, open, run, compare)");
            step.actions.push_back(std::move(action));
        } else if (name == "checkpoint") {
            step.checkpoints.push_back(parseCheckpoint(file, c));
        } else if (name == "hint") {
            const std::string hint = foldedText(c);
            if (hint.empty()) fail(file, c->GetLineNum(), "<hint> is empty");
            step.hints.push_back(hint);
        } else if (name == "recorded") {
            if (step.recorded) fail(file, c->GetLineNum(), "a step has at most one <recorded> run");
            step.recorded = parseRecorded(file, c);
        } else {
            fail(file, c->GetLineNum(), "unknown element <" + name + "> in a step (prose, action, checkpoint, hint, recorded)");
        }
    }
    return step;
}

}  // namespace

const char* metricName(Metric metric) {
    for (const MetricInfo& m : kMetrics)
        if (m.metric == metric) return m.name;
    return "?";
}

std::optional<Metric> parseMetric(std::string_view name) {
    for (const MetricInfo& m : kMetrics)
        if (name == m.name) return m.metric;
    return std::nullopt;
}

bool metricNeedsRun(Metric metric) {
    for (const MetricInfo& m : kMetrics)
        if (m.metric == metric) return m.needsRun;
    return false;
}

bool TutorialAction::needsGpu() const {
    return std::any_of(ops.begin(), ops.end(), [](const ActionOp& o) { return o.kind == ActionOp::Kind::Run; });
}

std::string RecordedRun::summary() const {
    std::vector<std::string> parts;
    if (!passed) parts.push_back("FAILED its check");
    if (medianMs) parts.push_back(fmt::format("{:.3f} ms", *medianMs));
    if (gflops) parts.push_back(fmt::format("{:.0f} GFLOP/s", *gflops));
    if (gbps) parts.push_back(fmt::format("{:.0f} GB/s", *gbps));
    if (pctCopy) parts.push_back(fmt::format("{:.0f}% of copy bandwidth", *pctCopy));
    if (pctBaseline) parts.push_back(fmt::format("{:.0f}% of {}", *pctBaseline, baseline));
    if (pctRoof) parts.push_back(fmt::format("{:.0f}% of the {}", *pctRoof, roof));
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}

int Tutorial::stepIndex(std::string_view stepId) const {
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].id == stepId) return static_cast<int>(i);
    return -1;
}

Tutorial parseTutorial(const fs::path& file) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(file.c_str()) != tinyxml2::XML_SUCCESS) {
        const int line = doc.ErrorLineNum();
        std::string reason = "malformed XML: " + std::string(doc.ErrorStr() ? doc.ErrorStr() : doc.ErrorName());
        if (doc.ErrorID() == tinyxml2::XML_ERROR_FILE_NOT_FOUND) reason = "cannot read the file";
        fail(file, line, reason);
    }
    const XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "tutorial") fail(file, root ? root->GetLineNum() : 1, "the root element must be <tutorial>");
    allowAttributes(file, root, {"id", "title", "order"});
    Tutorial t;
    t.file = file;
    t.folder = file.parent_path();
    t.id = requiredAttr(file, root, "id");
    t.title = requiredAttr(file, root, "title");
    if (const auto order = number(file, root, "order")) {
        if (!(*order >= -1e6 && *order <= 1e6) || *order != std::floor(*order))
            fail(file, root->GetLineNum(), fmt::format("<tutorial> order=\"{}\" must be a whole number from -1000000 to 1000000", *order));
        t.order = static_cast<int>(*order);
    }
    if (t.id != t.folder.filename().string())
        fail(file, root->GetLineNum(), "id \"" + t.id + "\" must be the folder's name, \"" + t.folder.filename().string() + "\"");
    std::set<std::string> ids;
    for (const XMLElement* c = root->FirstChildElement(); c; c = c->NextSiblingElement()) {
        const std::string name = c->Name();
        if (name == "summary") {
            t.summary = foldedText(c);
        } else if (name == "step") {
            TutorialStep step = parseStep(file, c, t);
            if (!ids.insert(step.id).second) fail(file, step.line, "a step with id '" + step.id + "' comes earlier");
            for (const Checkpoint& cp : step.checkpoints)
                if (cp.metric == Metric::Speedup && !ids.count(cp.over))
                    fail(file, cp.line, "speedup over '" + cp.over + "': no earlier step has that id");
            t.steps.push_back(std::move(step));
        } else {
            fail(file, c->GetLineNum(), "unknown element <" + name + "> in a tutorial (summary, step)");
        }
    }
    if (t.steps.empty()) fail(file, root->GetLineNum(), "the tutorial has no <step>");
    return t;
}

TutorialLibrary TutorialLibrary::load(const fs::path& dir) {
    TutorialLibrary lib;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return lib;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_directory() && fs::exists(entry.path() / "tutorial.xml")) files.push_back(entry.path() / "tutorial.xml");
    for (const fs::path& f : files) {
        try {
            lib.m_tutorials.push_back(std::make_shared<const Tutorial>(parseTutorial(f)));
        } catch (const InputError& e) {
            lib.m_errors.push_back({f, e.what()});
        }
    }
    std::sort(lib.m_tutorials.begin(), lib.m_tutorials.end(), [](const auto& a, const auto& b) {
        return a->order != b->order ? a->order < b->order : a->id < b->id;
    });
    std::sort(lib.m_errors.begin(), lib.m_errors.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
    return lib;
}

std::shared_ptr<const Tutorial> TutorialLibrary::find(std::string_view id) const {
    for (const auto& t : m_tutorials)
        if (t->id == id) return t;
    return nullptr;
}

std::vector<StepTarget> stepTargets(const Tutorial& tutorial, const TemplateLibrary& templates, const ArchDatabase& arches) {
    const fs::path& file = tutorial.file;
    std::shared_ptr<const Template> tmpl;
    const Arch* arch = arches.findArch(kDefaultArch);
    Config config;
    CompileFlags flags;
    // A config the editor would be left with must be valid, else the learner sees red and no PTX.
    auto requireValid = [&](int line, const Config& c) {
        if (!tmpl || !arch) return;
        const auto violations = tmpl->validate(c, *arch);
        if (violations.empty()) return;
        std::string list;
        for (const Violation& v : violations) list += "; " + v.message;
        fail(file, line, fmt::format("{} for {} breaks {} constraint(s){}", tmpl->configName(c), arch->name, violations.size(), list));
    };
    auto apply = [&](int line, const std::map<std::string, std::string>& values) {
        if (!tmpl) fail(file, line, "parameters are set before any <select template=\"...\"/>");
        try {
            return tmpl->withValues(config, values);
        } catch (const InputError& e) {
            fail(file, line, e.what());
        }
    };
    std::vector<StepTarget> targets;
    for (const TutorialStep& step : tutorial.steps) {
        for (const TutorialAction& action : step.actions) {
            for (const ActionOp& op : action.ops) {
                switch (op.kind) {
                case ActionOp::Kind::Select:
                    if (!op.templateId.empty()) {
                        tmpl = templates.find(op.templateId);
                        if (!tmpl) fail(file, op.line, "unknown template '" + op.templateId + "'");
                        config = tmpl->defaultConfig();
                        flags = {};
                    }
                    if (!op.arch.empty()) {
                        arch = arches.findArch(op.arch);
                        if (!arch) fail(file, op.line, "unknown architecture '" + op.arch + "'");
                    }
                    requireValid(op.line, config);
                    break;
                case ActionOp::Kind::Set:
                    config = apply(op.line, op.values);
                    requireValid(op.line, config);
                    break;
                case ActionOp::Kind::Compare:
                    requireValid(op.line, apply(op.line, op.a));
                    config = apply(op.line, op.b);
                    requireValid(op.line, config);
                    break;
                case ActionOp::Kind::Size:
                    // The names must be the template's sizes and the values within their limits.
                    if (!tmpl) fail(file, op.line, "sizes are set before any <select template=\"...\"/>");
                    try {
                        tmpl->withSizes(op.values);
                    } catch (const InputError& e) {
                        fail(file, op.line, e.what());
                    }
                    break;
                case ActionOp::Kind::Run:
                    if (!tmpl) fail(file, op.line, "<run/> before any <select template=\"...\"/>");
                    break;
                case ActionOp::Kind::Flags:
                    flags = op.flags;
                    if (arch) {
                        const std::string problem = compileFlagsProblem(flags, *arch);
                        if (!problem.empty()) fail(file, op.line, problem);
                    }
                    break;
                case ActionOp::Kind::Open: break;
                }
            }
        }
        StepTarget target;
        if (tmpl) {
            target.templateId = tmpl->id();
            target.config = config.values;
            target.flags = flags.canonical();
        }
        target.arch = arch ? arch->name : "";
        targets.push_back(std::move(target));
    }
    return targets;
}

}  // namespace kx::engine
