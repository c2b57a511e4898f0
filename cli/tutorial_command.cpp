// kx tutorial list | show NAME | check NAME --session FILE.
#include "command_options.hpp"
#include "commands.hpp"

#include "store/session_store.hpp"
#include "tutorial/session_check.hpp"
#include "tutorial/tutorial.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <iostream>
#include <optional>

namespace kx::cli {
using namespace kx::engine;

namespace {

std::shared_ptr<const Tutorial> findTutorial(const TutorialLibrary& lib, const std::string& name) {
    if (auto t = lib.find(name)) return t;
    std::string known;
    for (const auto& t : lib.tutorials()) known += (known.empty() ? "" : ", ") + t->id;
    for (const TutorialLoadError& e : lib.errors())
        if (e.file.parent_path().filename() == name) throw InputError(e.message);
    throw InputError(fmt::format("unknown tutorial '{}' (tutorials: {})", name, known.empty() ? "none" : known));
}

void warnLoadErrors(const TutorialLibrary& lib) {
    for (const TutorialLoadError& e : lib.errors()) std::cerr << "kx: warning: " << e.message << "\n";
}

std::string opText(const ActionOp& op) {
    auto values = [](const std::map<std::string, std::string>& v) {
        std::string out;
        for (const auto& [k, value] : v) out += (out.empty() ? "" : ",") + k + "=" + value;
        return out;
    };
    switch (op.kind) {
    case ActionOp::Kind::Select:
        return "select" + (op.templateId.empty() ? "" : " template " + op.templateId) + (op.arch.empty() ? "" : " arch " + op.arch);
    case ActionOp::Kind::Set: return "set " + values(op.values);
    case ActionOp::Kind::Size: return "size " + values(op.values);
    case ActionOp::Kind::Open: return "open " + op.view;
    case ActionOp::Kind::Run: return "run on the GPU";
    case ActionOp::Kind::Compare: return "compare " + values(op.a) + " with " + values(op.b);
    case ActionOp::Kind::Flags: return "flags " + (op.flags.isDefault() ? std::string("defaults") : op.flags.canonical());
    }
    return "";
}

const char* mark(CheckStatus s) { return enumName(s, {"PASS", "FAIL", "RUN "}); }

}  // namespace

int tutorialList(const TutorialArgs& args) {
    const TutorialLibrary lib = TutorialLibrary::load(args.dataRoot / "tutorials");
    warnLoadErrors(lib);
    std::optional<SessionStore> store;
    if (!args.session.empty()) store = SessionStore::open(args.session);
    for (const auto& t : lib.tutorials()) {
        std::string progress;
        if (store) {
            if (const auto p = store->tutorialProgress(t->id))
                progress = fmt::format("  [{}, step {}/{}]", p->state, std::min<int>(p->step + 1, static_cast<int>(t->steps.size())), t->steps.size());
        }
        fmt::print("{:>2}  {:<20} {} ({} steps){}\n", t->order, t->id, t->title, t->steps.size(), progress);
    }
    return 0;
}

int tutorialShow(const Context& ctx, const TutorialArgs& args) {
    const TutorialLibrary lib = TutorialLibrary::load(args.dataRoot / "tutorials");
    const auto t = findTutorial(lib, args.name);
    // Actions that do not fit the templates are reported like a malformed file.
    stepTargets(*t, ctx.templates, ctx.arches);
    fmt::print("{}\n{}\n\n{}\n", t->title, std::string(t->title.size(), '='), t->summary);
    for (std::size_t i = 0; i < t->steps.size(); ++i) {
        const TutorialStep& s = t->steps[i];
        fmt::print("\nStep {} of {}: {} ({})\n", i + 1, t->steps.size(), s.title, s.id);
        fmt::print("{}", proseToText(s.prose));
        for (const TutorialAction& a : s.actions) {
            std::string ops;
            for (const ActionOp& op : a.ops) ops += (ops.empty() ? "" : "; ") + opText(op);
            fmt::print("  [{}] {}\n", a.label, ops);
        }
        for (const Checkpoint& c : s.checkpoints) fmt::print("  check: {}{}\n", c.label, metricNeedsRun(c.metric) ? " (needs a GPU run)" : "");
        for (const std::string& h : s.hints) fmt::print("  hint: {}\n", h);
        if (s.recorded) fmt::print("  recorded on {} ({}): {}  [{}]\n", s.recorded->device, s.recorded->date, s.recorded->summary(), s.recorded->source);
    }
    return 0;
}

int tutorialCheck(const Context& ctx, const TutorialArgs& args) {
    const TutorialLibrary lib = TutorialLibrary::load(args.dataRoot / "tutorials");
    const auto t = findTutorial(lib, args.name);
    const SessionStore store = SessionStore::open(args.session);
    const std::vector<StepCheck> checks = checkSession(*t, store, ctx.templates, ctx.arches);
    int passed = 0, total = 0;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const TutorialStep& s = t->steps[i];
        if (s.checkpoints.empty()) continue;
        fmt::print("Step {}: {}{}\n", i + 1, s.title, checks[i].variant.empty() ? "" : "  (variant " + checks[i].variant + ")");
        for (std::size_t c = 0; c < s.checkpoints.size(); ++c) {
            const CheckVerdict& v = checks[i].verdicts[c];
            fmt::print("  {}  {}: {}\n", mark(v.status), s.checkpoints[c].label, v.reason);
            if (v.status != CheckStatus::Pass && !s.checkpoints[c].hint.empty()) fmt::print("        hint: {}\n", s.checkpoints[c].hint);
            ++total;
            passed += v.status == CheckStatus::Pass;
        }
    }
    fmt::print("{} of {} checkpoints pass\n", passed, total);
    return passed == total ? 0 : 1;
}

// [SECTION] Command line

void addTutorialCommand(CLI::App& app, CommandTable& table) {
    auto tut = std::make_shared<TutorialArgs>();
    CLI::App* tutorialCmd = app.add_subcommand("tutorial", "Guided tutorials: list them, read one, check a session against its checkpoints");
    tutorialCmd->require_subcommand(1);
    CLI::App* tutorialList = tutorialCmd->add_subcommand("list", "List the tutorials in learning order");
    tutorialList->add_option("--session", tut->session, "Show the progress kept in this session file");
    table.add(tutorialList, [tut](Context& ctx) {
        tut->dataRoot = ctx.dataRoot;
        return cli::tutorialList(*tut);
    });
    CLI::App* tutorialShow = tutorialCmd->add_subcommand("show", "Print a tutorial: its steps, actions, checkpoints and recorded runs");
    tutorialShow->add_option("name", tut->name, "Tutorial id (see 'kx tutorial list')")->required();
    table.add(tutorialShow, [tut](Context& ctx) {
        tut->dataRoot = ctx.dataRoot;
        return cli::tutorialShow(ctx, *tut);
    });
    CLI::App* tutorialCheck = tutorialCmd->add_subcommand("check", "Judge a session's variants and runs against a tutorial's checkpoints (exit 0 when all pass)");
    tutorialCheck->add_option("name", tut->name, "Tutorial id (see 'kx tutorial list')")->required();
    tutorialCheck->add_option("--session", tut->session, "Session file (.kxs)")->required();
    table.add(tutorialCheck, [tut](Context& ctx) {
        tut->dataRoot = ctx.dataRoot;
        return cli::tutorialCheck(ctx, *tut);
    });
}

}  // namespace kx::cli
