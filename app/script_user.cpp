// The script commands of the user's own kernels, compiler flags and share strings (`kernel ...`,
// `flag ...`, `share ...`), for the GUI tests and the README's screenshot.
#include "script.hpp"

#include "explorer_app.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace kx::app {

namespace {

std::string readWholeFile(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw engine::InputError("cannot read " + file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

bool isUserCommand(const std::string& word) { return word == "kernel" || word == "flag" || word == "share"; }

void parseUserCommand(const std::vector<std::string>& w, ScriptCommand& c) {
    const std::string& cmd = w[0];
    const std::size_t nargs = w.size() - 1;
    if (cmd == "flag") {
        c.kind = ScriptCommand::Kind::Flag;
        if (nargs == 0) throw std::invalid_argument("'flag' needs KEY=VALUE (maxrregcount, fast_math, ptxas_opt, extra_vectorization)");
        for (std::size_t i = 1; i < w.size(); ++i) {
            const auto eq = w[i].find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == w[i].size())
                throw std::invalid_argument(fmt::format("expected KEY=VALUE, got '{}'", w[i]));
            c.values.emplace_back(w[i].substr(0, eq), w[i].substr(eq + 1));
        }
        return;
    }
    const std::string sub = nargs >= 1 ? w[1] : "";
    c.argument = sub;
    if (cmd == "share") {
        c.kind = ScriptCommand::Kind::Share;
        if (!((sub == "copy" && nargs == 1) || (sub == "open" && (nargs == 1 || nargs == 2))))
            throw std::invalid_argument("'share' takes copy, or open [STRING] (the clipboard's text without STRING)");
        if (nargs == 2) c.second = w[2];
        return;
    }
    c.kind = ScriptCommand::Kind::UserKernel;
    const bool noArg = sub == "copy" || sub == "wait" || sub == "print";
    const bool oneArg = sub == "paste" || sub == "open" || sub == "tab";
    if (!(noArg && nargs == 1) && !(oneArg && nargs == 2) && !(sub == "replace" && nargs == 4))
        throw std::invalid_argument("'kernel' takes paste FILE, copy, open ID, tab FILE, replace FILE OLD NEW, wait or print");
    for (std::size_t i = 2; i < w.size(); ++i) c.values.emplace_back(w[i], "");
}

bool ScriptRunner::stepUser(const ScriptCommand& c, ExplorerApp& app) {
    ExplorerModel& model = app.model();
    UserTemplateModel& user = app.userTemplates();
    auto arg = [&](std::size_t i) { return c.values[i].first; };
    try {
        if (c.kind == ScriptCommand::Kind::Flag) {
            for (const auto& [k, v] : c.values) model.setFlag(k, v);
        } else if (c.kind == ScriptCommand::Kind::Share && c.argument == "copy") {
            std::string why;
            const std::string text = app.copyShareString(&why);
            if (text.empty()) fail(c, "cannot share: " + why);
            std::cerr << "kernel-explorer: share: " << text << "\n";
        } else if (c.kind == ScriptCommand::Kind::Share) {
            std::string message;
            if (!app.openShareString(c.second.empty() ? nullptr : c.second.c_str(), &message)) fail(c, message);
            std::cerr << "kernel-explorer: share: " << message << "\n";
        } else if (c.argument == "paste") {
            app.userTemplateView().setOpen(true);
            user.createFromKernel(readWholeFile(arg(0)));
        } else if (c.argument == "copy") {
            app.userTemplateView().setOpen(true);
            user.duplicateCurrent();
        } else if (c.argument == "open") {
            const auto t = model.library().find(arg(0));
            if (!t || !model.library().isUser(arg(0))) fail(c, fmt::format("'{}' is not a user template", arg(0)));
            model.selectTemplate(arg(0));
            user.open(t->manifest().folder);
            app.userTemplateView().setOpen(true);
        } else if (c.argument == "tab") {
            if (user.text(arg(0)) == nullptr) fail(c, fmt::format("the open template has no file '{}'", arg(0)));
            app.userTemplateView().selectFile(arg(0));
        } else if (c.argument == "replace") {
            if (!user.replaceText(arg(0), arg(1), arg(2))) fail(c, fmt::format("{} of the open template holds no '{}'", arg(0), arg(1)));
        } else if (c.argument == "wait") {
            // Saved and loaded, then compiled: what an edit waits for.
            return waitFor(c, user.settled() && model.compileIdle(), kCompileWaitCap, "the edit's save and compile");
        } else if (c.argument == "print") {
            const engine::PreparedVariant* v = model.variant();
            const engine::CompileResult* r = model.resultIsCurrent() ? model.compileResult() : nullptr;
            const engine::KernelResources* k = r && v ? engine::kernelNamed(r->kernels, v->name) : nullptr;
            const bool capped = k && model.flags().maxRegisters > 0 &&
                                engine::registerCapOutcome(r->log, v->name, k->registers, model.flags().maxRegisters) !=
                                    engine::RegisterCapOutcome::Ignored;
            std::cerr << fmt::format("kernel-explorer: kernel: {}: {} on {}: flags {}{}; {}; {}\n", user.id().empty() ? "(none)" : user.id(),
                                     v ? v->name : "(none)", model.currentArch() ? model.currentArch()->name : "?",
                                     model.flags().isDefault() ? "defaults" : model.flags().canonical(), capped ? " (cap applied)" : "",
                                     k ? fmt::format("{} registers, spills {}+{} bytes", k->registers, k->spillStoreBytes, k->spillLoadBytes)
                                       : "not compiled",
                                     user.error().empty() ? "loaded" : "error: " + user.error());
        }
    } catch (const engine::InputError& e) {
        fail(c, e.what());
    } catch (const engine::OutputError& e) {
        fail(c, e.what());
    }
    return false;
}

}  // namespace kx::app
