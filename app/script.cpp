#include "script.hpp"

#include "explorer_app.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kx::app {

namespace {

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

}  // namespace

Script parseScriptText(const std::string& text, const std::string& fileName) {
    Script script;
    script.file = fileName;
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    while (std::getline(in, raw)) {
        ++lineNo;
        if (const auto hash = raw.find('#'); hash != std::string::npos) raw.erase(hash);
        const std::vector<std::string> w = words(raw);
        if (w.empty()) continue;
        auto error = [&](const std::string& reason) {
            return ScriptError(fmt::format("{}:{}: {}", fileName, lineNo, reason));
        };
        ScriptCommand c;
        c.line = lineNo;
        const std::string& cmd = w[0];
        const std::size_t nargs = w.size() - 1;
        if (cmd == "view" && nargs > 1) {  // titles may hold spaces: "view instruction mix"
            c.kind = ScriptCommand::Kind::View;
            for (std::size_t i = 1; i < w.size(); ++i) c.argument += (i > 1 ? " " : "") + w[i];
            script.commands.push_back(std::move(c));
            continue;
        }
        if (cmd == "template" || cmd == "arch" || cmd == "tab" || cmd == "screenshot" || cmd == "view" ||
            cmd == "export-roofline") {
            if (nargs != 1) throw error(fmt::format("'{}' takes one argument, got {}", cmd, nargs));
            c.argument = w[1];
            if (cmd == "template") c.kind = ScriptCommand::Kind::Template;
            if (cmd == "arch") c.kind = ScriptCommand::Kind::Arch;
            if (cmd == "screenshot") c.kind = ScriptCommand::Kind::Screenshot;
            if (cmd == "view") c.kind = ScriptCommand::Kind::View;
            if (cmd == "export-roofline") {
                c.kind = ScriptCommand::Kind::ExportRoofline;
                const std::string ext = std::filesystem::path(c.argument).extension().string();
                if (ext != ".png" && ext != ".csv")
                    throw error(fmt::format("'export-roofline' writes FILE.png or FILE.csv, got '{}'", c.argument));
            }
            if (cmd == "tab") {
                c.kind = ScriptCommand::Kind::Tab;
                if (c.argument == "occupancy" || c.argument == "roofline") {
                    c.kind = ScriptCommand::Kind::View;  // analysis panels are views of their own
                } else if (c.argument != "source" && c.argument != "ptx" && c.argument != "sass" && c.argument != "log") {
                    throw error(fmt::format("unknown tab '{}' (source, ptx, sass, log, occupancy or roofline)", c.argument));
                }
            }
        } else if (cmd == "set" || cmd == "expect") {
            if (nargs == 0) throw error(fmt::format("'{}' needs KEY=VALUE", cmd));
            c.kind = cmd == "set" ? ScriptCommand::Kind::Set : ScriptCommand::Kind::Expect;
            for (std::size_t i = 1; i < w.size(); ++i) {
                const auto eq = w[i].find('=');
                if (eq == std::string::npos || eq == 0 || eq + 1 == w[i].size())
                    throw error(fmt::format("expected KEY=VALUE, got '{}'", w[i]));
                c.values.emplace_back(w[i].substr(0, eq), w[i].substr(eq + 1));
            }
        } else if (cmd == "keep" || cmd == "pin" || cmd == "wait-session" || cmd == "run" || cmd == "wait-run" || cmd == "crash" ||
                   cmd == "demo") {
            if (nargs != 0) throw error(fmt::format("'{}' takes no argument", cmd));
            c.kind = cmd == "wait-session" ? ScriptCommand::Kind::WaitSession
                     : cmd == "demo"       ? ScriptCommand::Kind::Demo
                     : cmd == "run"        ? ScriptCommand::Kind::Run
                     : cmd == "wait-run"   ? ScriptCommand::Kind::WaitRun
                     : cmd == "crash"      ? ScriptCommand::Kind::Crash
                                           : ScriptCommand::Kind::Keep;
        } else if (cmd == "tutorial") {
            const std::string sub = nargs >= 1 ? w[1] : "";
            const bool oneArg = sub == "open" || sub == "action" || sub == "welcome";
            const bool noArg = sub == "next" || sub == "back" || sub == "check";
            if (!(oneArg && nargs == 2) && !(noArg && nargs == 1))
                throw error("'tutorial' takes open ID, next, back, action N, check or welcome start|dismiss");
            c.kind = ScriptCommand::Kind::Tutorial;
            c.argument = sub;
            if (oneArg) c.second = w[2];
            if (sub == "welcome" && c.second != "start" && c.second != "dismiss") throw error("'tutorial welcome' takes start or dismiss");
            if (sub == "action") {
                try {
                    std::size_t used = 0;
                    c.count = std::stoi(c.second, &used);
                    if (used != c.second.size() || c.count < 1) throw std::invalid_argument("not positive");
                } catch (const std::exception&) {
                    throw error(fmt::format("'tutorial action' needs a positive number, got '{}'", c.second));
                }
            }
        } else if (cmd == "sweep") {
            const std::string sub = nargs >= 1 ? w[1] : "";
            const bool noArg = sub == "stop" || sub == "wait";
            const bool oneArg = sub == "vary" || sub == "metric" || sub == "load" || sub == "export" || sub == "frame-p99";
            if (!(noArg && nargs == 1) && !(oneArg && nargs == 2) && !(sub == "axes" && nargs == 3) &&
                !(sub == "start" && (nargs == 1 || (nargs == 2 && w[2] == "compile-only"))))
                throw error("'sweep' takes vary P[=VALUES], start [compile-only], stop, wait, axes X Y, metric NAME, load best, export FILE.csv "
                            "or frame-p99 MS");
            c.kind = ScriptCommand::Kind::Sweep;
            c.argument = sub;
            for (std::size_t i = 2; i < w.size(); ++i) c.second += (i > 2 ? " " : "") + w[i];
        } else if (cmd == "tiles") {
            const std::string sub = nargs >= 1 ? w[1] : "";
            const bool noArg = sub == "open" || sub == "print";
            const bool oneArg = sub == "step" || sub == "warp" || sub == "device" || sub == "export";
            if (!(noArg && nargs == 1) && !(oneArg && nargs == 2) && !(sub == "select" && nargs == 3))
                throw error("'tiles' takes open, step N, select I J, warp N, device ID, print or export FILE.png");
            c.kind = ScriptCommand::Kind::Tiles;
            c.argument = sub;
            for (std::size_t i = 2; i < w.size(); ++i) c.values.emplace_back(w[i], "");
            if (sub == "export" && std::filesystem::path(w[2]).extension() != ".png")
                throw error(fmt::format("'tiles export' writes FILE.png, got '{}'", w[2]));
            for (const auto& [v, unused] : c.values) {
                const bool number = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
                if ((sub == "step" || sub == "warp" || sub == "select") && !number)
                    throw error(fmt::format("'tiles {}' needs whole numbers, got '{}'", sub, v));
            }
        } else if (cmd == "file-dialog") {
            if (nargs != 1 || (w[1] != "new" && w[1] != "open" && w[1] != "save-as"))
                throw error("'file-dialog' takes new, open or save-as");
            c.kind = ScriptCommand::Kind::FileDialog;
            c.argument = w[1];
        } else if (cmd == "session" && nargs == 0) {
            c.kind = ScriptCommand::Kind::Session;  // the default session, as at start-up
        } else if (cmd == "session" || cmd == "save-as" || cmd == "load-variant" || cmd == "fault") {
            if (nargs != 1) throw error(fmt::format("'{}' takes one argument, got {}", cmd, nargs));
            c.argument = w[1];
            c.kind = cmd == "session"      ? ScriptCommand::Kind::Session
                     : cmd == "save-as"    ? ScriptCommand::Kind::SaveAs
                     : cmd == "fault"      ? ScriptCommand::Kind::Fault
                                           : ScriptCommand::Kind::LoadVariant;
            if (cmd == "fault" && c.argument != "out_of_bounds" && c.argument != "trap" && c.argument != "hang")
                throw error(fmt::format("unknown fault '{}' (out_of_bounds, trap or hang)", c.argument));
        } else if (cmd == "rename") {
            if (nargs != 2) throw error("'rename' takes VARIANT NEW_NAME");
            c.kind = ScriptCommand::Kind::Rename;
            c.argument = w[1];
            c.second = w[2];
        } else if (cmd == "notes") {
            if (nargs < 2) throw error("'notes' takes VARIANT TEXT...");
            c.kind = ScriptCommand::Kind::Notes;
            c.argument = w[1];
            for (std::size_t i = 2; i < w.size(); ++i) c.second += (i > 2 ? " " : "") + w[i];
        } else if (cmd == "compare-select") {
            if (nargs != 2) throw error(fmt::format("'compare-select' takes two pins (A B), got {}", nargs));
            c.kind = ScriptCommand::Kind::CompareSelect;
            c.argument = w[1];
            c.second = w[2];
        } else if (cmd == "compare-tab") {
            if (nargs != 1) throw error("'compare-tab' takes one of source, ptx, sass");
            c.kind = ScriptCommand::Kind::CompareTab;
            c.argument = w[1];
            if (c.argument != "source" && c.argument != "ptx" && c.argument != "sass")
                throw error(fmt::format("unknown compare tab '{}' (source, ptx or sass)", c.argument));
        } else if (cmd == "export-compare") {
            if (nargs != 1) throw error("'export-compare' takes one FILE.csv or FILE.md");
            c.kind = ScriptCommand::Kind::ExportCompare;
            c.argument = w[1];
            const std::string ext = std::filesystem::path(c.argument).extension().string();
            if (ext != ".csv" && ext != ".md")
                throw error(fmt::format("'export-compare' writes FILE.csv or FILE.md, got '{}'", c.argument));
        } else if (cmd == "code") {
            try {
                parseCodeCommand(w, c);
            } catch (const std::invalid_argument& e) {
                throw error(e.what());
            }
        } else if (isUserCommand(cmd)) {
            try {
                parseUserCommand(w, c);
            } catch (const std::invalid_argument& e) {
                throw error(e.what());
            }
        } else if (isWorkspaceCommand(cmd)) {
            try {
                parseWorkspaceCommand(w, c);
            } catch (const std::invalid_argument& e) {
                throw error(e.what());
            }
        } else if (cmd == "wait-compile") {
            if (nargs != 0) throw error("'wait-compile' takes no argument");
            c.kind = ScriptCommand::Kind::WaitCompile;
        } else if (cmd == "frames") {
            if (nargs != 1) throw error("'frames' takes one number");
            c.kind = ScriptCommand::Kind::Frames;
            try {
                std::size_t used = 0;
                c.count = std::stoi(w[1], &used);
                if (used != w[1].size() || c.count < 0) throw std::invalid_argument("negative");
            } catch (const std::exception&) {
                throw error(fmt::format("'frames' needs a non-negative number, got '{}'", w[1]));
            }
        } else {
            throw error(fmt::format("unknown command '{}' (template, arch, set, tab, view, wait-compile, frames, screenshot, export-roofline, "
                                    "expect, session, demo, file-dialog, save-as, keep, rename, notes, load-variant, wait-session, run, fault, wait-run, crash, "
                                    "compare-select, compare-tab, export-compare, tutorial, sweep, tiles, frame-stats, wheel, key, layout, maximise, theme, zoom, "
                                    "print-layout, idle-cpu, theme-check, quit, code, kernel, flag, share)",
                                    cmd));
        }
        script.commands.push_back(std::move(c));
    }
    return script;
}

Script parseScript(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw ScriptError(fmt::format("{}: cannot read the script", file.string()));
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseScriptText(buffer.str(), file.string());
}

void ScriptRunner::fail(const ScriptCommand& c, const std::string& reason) const {
    throw ScriptError(fmt::format("{}:{}: {}", m_script.file, c.line, reason));
}

bool ScriptRunner::waitFor(const ScriptCommand& c, bool done, std::chrono::seconds cap, const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (!m_waitStart) m_waitStart = now;
    if (!done && now - *m_waitStart < cap) return true;
    m_waitStart.reset();
    if (!done) fail(c, fmt::format("{} did not finish within {} s", what, cap.count()));
    return false;
}

int ScriptRunner::variantIndex(const ScriptCommand& c, ExplorerApp& app, const std::string& name) const {
    const CompareModel& cmp = app.model().compare();
    const int i = cmp.find(name);
    if (i < 0)
        fail(c, fmt::format("no single variant matches '{}' ({} in the session: give a 1-based position or a name)", name,
                            cmp.pins().size()));
    return i;
}

bool ScriptRunner::stepTutorial(const ScriptCommand& c, ExplorerApp& app) {
    TutorialModel& tutorials = app.tutorials();
    ExplorerModel& model = app.model();
    if (c.argument == "open") {
        if (!tutorials.open(c.second)) fail(c, fmt::format("unknown tutorial '{}'", c.second));
        app.tutorialsView().setOpen(true);
    } else if (c.argument == "next") {
        tutorials.next();
    } else if (c.argument == "back") {
        tutorials.back();
    } else if (c.argument == "welcome") {
        // The welcome waits for the session to open.
        if (waitFor(c, model.session().isOpen() && !model.session().busy(), kSessionWaitCap, "the session")) return true;
        if (!tutorials.welcomeDue()) fail(c, "no first-run welcome is showing");
        tutorials.dismissWelcome();
        if (c.second == "start") tutorials.open(tutorials.library().tutorials().front()->id);
        else app.tutorialsView().setOpen(false);
    } else if (c.argument == "action") {
        if (m_waitFrames < 0) {
            const engine::TutorialStep* step = tutorials.step();
            if (!step) fail(c, "no tutorial is open");
            if (c.count > static_cast<int>(step->actions.size()))
                fail(c, fmt::format("step '{}' has {} action(s), not {}", step->id, step->actions.size(), c.count));
            tutorials.runAction(c.count - 1);
            m_waitFrames = 0;
        }
        if (waitFor(c, !tutorials.actionBusy(), kCompileWaitCap, "the tutorial action")) return true;
        m_waitFrames = -1;
        if (!tutorials.actionMessage().empty()) fail(c, "the action stopped: " + tutorials.actionMessage());
    } else if (c.argument == "check") {
        const bool settled = model.compileIdle() && !model.session().busy() && !tutorials.actionBusy();
        if (waitFor(c, settled, kCompileWaitCap, "the compile")) return true;
        tutorials.update();  // judge the settled state now
        const engine::TutorialStep* step = tutorials.step();
        if (!step) fail(c, "no tutorial is open");
        std::string failed;
        for (std::size_t i = 0; i < step->checkpoints.size() && i < tutorials.verdicts().size(); ++i) {
            const engine::CheckVerdict& v = tutorials.verdicts()[i];
            std::cerr << fmt::format("kernel-explorer: tutorial: {}: {}: {}: {}\n", step->id, engine::checkStatusName(v.status),
                                     step->checkpoints[i].label, v.reason);
            if (v.status == engine::CheckStatus::Fail) failed += fmt::format("; {}: {}", step->checkpoints[i].label, v.reason);
        }
        if (!failed.empty()) fail(c, fmt::format("step '{}' has failing checkpoints{}", step->id, failed));
    }
    return false;
}

bool ScriptRunner::stepSweep(const ScriptCommand& c, ExplorerApp& app) {
    SweepModel& sweeps = app.sweeps();
    const std::string& arg = c.second;
    if (c.argument == "vary") {
        const auto eq = arg.find('=');
        const std::string param = arg.substr(0, eq);
        const engine::Template* t = app.model().currentTemplate();
        if (!t || !t->manifest().findParam(param)) fail(c, fmt::format("'{}' is not a parameter of the editor's template", param));
        sweeps.varyText()[param] = eq == std::string::npos ? sweeps.allValuesText(param) : arg.substr(eq + 1);
    } else if (c.argument == "start") {
        if (waitFor(c, app.model().runs().runnerState() != RunnerState::Probing, kCompileWaitCap, "the GPU probe")) return true;
        app.sweepView().setOpen(true);
        sweeps.compileOnly = arg == "compile-only";
        try {
            sweeps.start();
        } catch (const engine::InputError& e) {
            fail(c, std::string("cannot start the sweep: ") + e.what());
        }
    } else if (c.argument == "stop") {
        sweeps.stop();
    } else if (c.argument == "wait") {
        if (waitFor(c, !sweeps.running(), kRunWaitCap, "the sweep")) return true;
        sweeps.update();
        const engine::SweepCounts n = sweeps.counts();
        std::cerr << fmt::format("kernel-explorer: sweep: {} configs: {} measured, {} compiled, {} pruned, {} failed, {} not reached; "
                                 "{} frames, frame time p50 {:.1f} ms, p99 {:.1f} ms\n",
                                 n.total, n.measured, n.compiled, n.pruned, n.compileFailed + n.runFailed, n.notReached,
                                 sweeps.frameTimes().count(), sweeps.frameTimes().percentileMs(50), sweeps.frameTimes().percentileMs(99));
    } else if (c.argument == "axes") {
        const auto space = arg.find(' ');
        sweeps.xParam = arg.substr(0, space);
        sweeps.yParam = arg.substr(space + 1);
    } else if (c.argument == "metric") {
        bool found = false;
        for (SweepMetric m : kSweepMetrics)
            if (arg == metricKey(m)) {
                sweeps.metric = m;
                found = true;
            }
        if (!found) fail(c, fmt::format("unknown sweep metric '{}' (tflops, gbps, baseline, time, occupancy, registers, predicted)", arg));
    } else if (c.argument == "load") {
        sweeps.update();
        const int best = sweeps.bestPoint();
        if (arg != "best") fail(c, "'sweep load' takes best");
        if (best < 0) fail(c, "the sweep has no config with a value to rank by");
        sweeps.loadIntoEditor(best);
    } else if (c.argument == "export") {
        try {
            sweeps.exportCsv(arg);
        } catch (const engine::InputError& e) {
            fail(c, e.what());
        }
    } else if (c.argument == "frame-p99") {
        double limit = 0;
        try {
            limit = std::stod(arg);
        } catch (const std::exception&) {
            fail(c, fmt::format("'sweep frame-p99' needs a number of milliseconds, got '{}'", arg));
        }
        const double p99 = sweeps.frameTimes().percentileMs(99);
        if (sweeps.frameTimes().count() == 0) fail(c, "no frames were drawn during the sweep");
        if (p99 > limit) fail(c, fmt::format("frame time p99 {:.1f} ms over {} frames is above {} ms", p99, sweeps.frameTimes().count(), limit));
    }
    return false;
}

bool ScriptRunner::stepTiles(const ScriptCommand& c, ExplorerApp& app) {
    TileView& view = app.tileView();
    TileModel& tiles = view.tiles();
    view.setOpen(true);
    tiles.update(0);
    auto number = [&](std::size_t i) { return std::stoll(c.values[i].first); };
    if (c.argument == "step") {
        tiles.showStep(number(0));
    } else if (c.argument == "warp") {
        tiles.selectWarp(static_cast<int>(number(0)));
    } else if (c.argument == "device") {
        if (app.model().archDatabase().findDevice(c.values[0].first) == nullptr) fail(c, fmt::format("unknown device '{}'", c.values[0].first));
        tiles.pickDevice(c.values[0].first);
    } else if (c.argument == "select" || c.argument == "print") {
        const auto& scene = tiles.scene();
        if (!scene) fail(c, "no tile view: " + tiles.message());
        const engine::GemmLayout& g = scene->gemm;
        if (c.argument == "select") {
            if (scene->kind != engine::TileScene::Kind::Gemm) fail(c, "'tiles select' picks a GEMM block tile");
            if (number(0) >= g.blocksM || number(1) >= g.blocksN)
                fail(c, fmt::format("block tile ({}, {}) is outside the {} x {} tiles", number(0), number(1), g.blocksM, g.blocksN));
            tiles.selectTile(g.idOfTile(number(0), number(1)));
        } else {
            const engine::WaveModel& w = scene->waves;
            const long long count = scene->kind == engine::TileScene::Kind::Gemm ? g.tiles : scene->blocks.tiles;
            std::cerr << fmt::format("kernel-explorer: tiles: {}: {} tiles, {} waves of {}, {} blocks/SM ({} registers)\n", scene->configName, count,
                                     w.waves, w.capacity, w.occupancy.blocksPerSm, w.registersSource);
        }
    } else if (c.argument == "export") {
        // Read back while a frame renders: ask, then wait for that frame.
        const std::filesystem::path file(c.values[0].first);
        if (m_waitFrames < 0) {
            if (!tiles.scene()) fail(c, "no tile view: " + tiles.message());
            view.requestPng(file);
            m_waitFrames = kSettleFrames + 2;
        }
        if (view.pngPending()) {
            if (--m_waitFrames > 0) return true;
            fail(c, "the Tiles view was not drawn, so no PNG was written");
        }
        m_waitFrames = -1;
        if (!std::filesystem::exists(file)) fail(c, view.lastExportMessage());
    }
    return false;
}

void ScriptRunner::step(ExplorerApp& app) {
    ExplorerModel& model = app.model();
    while (m_pc < m_script.commands.size()) {
        const ScriptCommand& c = m_script.commands[m_pc];
        switch (c.kind) {
        case ScriptCommand::Kind::Template:
            if (!model.selectTemplate(c.argument)) fail(c, fmt::format("unknown template '{}'", c.argument));
            break;
        case ScriptCommand::Kind::Arch:
            if (!model.selectArch(c.argument)) fail(c, fmt::format("unknown architecture '{}'", c.argument));
            break;
        case ScriptCommand::Kind::Set:
            for (const auto& [k, v] : c.values) {
                try {
                    model.setParam(k, v);
                } catch (const engine::InputError& e) {
                    fail(c, e.what());
                }
            }
            break;
        case ScriptCommand::Kind::Tab:
            app.selectTab(c.argument == "ptx"    ? CodeTab::Ptx
                          : c.argument == "sass" ? CodeTab::Sass
                          : c.argument == "log"  ? CodeTab::Log
                                                 : CodeTab::Source);
            break;
        case ScriptCommand::Kind::View:
            if (!app.showView(c.argument)) fail(c, fmt::format("unknown view '{}'", c.argument));
            break;
        case ScriptCommand::Kind::ExportRoofline: {
            const std::filesystem::path file(c.argument);
            if (file.extension() == ".csv") {
                if (!app.roofline().exportCsv(file)) fail(c, app.roofline().lastExportMessage());
                break;
            }
            // The PNG is read back while a frame renders: ask, then wait for that frame.
            if (m_waitFrames < 0) {
                app.showView("roofline");
                app.roofline().requestPng(file);
                m_waitFrames = kSettleFrames + 2;
            }
            if (app.roofline().pngPending()) {
                if (--m_waitFrames > 0) return;
                fail(c, "the roofline chart was not drawn, so no PNG was written");
            }
            m_waitFrames = -1;
            if (!std::filesystem::exists(file)) fail(c, app.roofline().lastExportMessage());
            break;
        }
        case ScriptCommand::Kind::WaitCompile: {
            const auto now = std::chrono::steady_clock::now();
            if (!m_waitStart) m_waitStart = now;
            if (!model.compileIdle()) {
                if (now - *m_waitStart < kCompileWaitCap) return;
                std::cerr << fmt::format("{}:{}: warning: compile still running after {} s; going on\n",
                                         m_script.file, c.line, kCompileWaitCap.count());
            }
            m_waitStart.reset();
            break;
        }
        case ScriptCommand::Kind::Keep: {
            // Waits like wait-compile (keeping needs the ptxas report, the last stage to land),
            // then for the session to write it.
            if (m_waitFrames < 0) {
                if (waitFor(c, model.compileIdle(), kCompileWaitCap, "the compile")) return;
                std::string why;
                if (!app.keepCurrent(&why)) fail(c, "cannot keep: " + why);
                m_waitFrames = 0;
            }
            if (waitFor(c, !model.session().busy(), kSessionWaitCap, "writing the session")) return;
            m_waitFrames = -1;
            if (!model.session().error().empty()) fail(c, model.session().error());
            break;
        }
        case ScriptCommand::Kind::Session:
        case ScriptCommand::Kind::Demo:
        case ScriptCommand::Kind::SaveAs:
        case ScriptCommand::Kind::Rename:
        case ScriptCommand::Kind::Notes:
        case ScriptCommand::Kind::WaitSession: {
            SessionModel& session = model.session();
            if (m_waitFrames < 0) {
                session.clearError();
                if (c.kind == ScriptCommand::Kind::Session) {
                    if (c.argument.empty()) session.openDefault();
                    else session.openOrCreate(c.argument);
                }
                if (c.kind == ScriptCommand::Kind::SaveAs) session.saveAs(c.argument);
                if (c.kind == ScriptCommand::Kind::Demo) app.openDemo();
                if (c.kind == ScriptCommand::Kind::WaitSession) model.saveEditorStateNow();
                if (c.kind == ScriptCommand::Kind::Rename || c.kind == ScriptCommand::Kind::Notes) {
                    const std::int64_t id = model.compare().pins()[static_cast<std::size_t>(variantIndex(c, app, c.argument))]->variantId;
                    if (c.kind == ScriptCommand::Kind::Rename) session.rename(id, c.second);
                    else session.setNotes(id, c.second);
                }
                m_waitFrames = 0;
            }
            if (waitFor(c, !session.busy(), kSessionWaitCap, "the session")) return;
            m_waitFrames = -1;
            if (!session.error().empty()) fail(c, session.error());
            // The editor follows an opened session on the next update().
            model.update();
            break;
        }
        case ScriptCommand::Kind::LoadVariant: {
            const int i = variantIndex(c, app, c.argument);
            const std::int64_t id = model.compare().pins()[static_cast<std::size_t>(i)]->variantId;
            if (!model.loadVariant(id)) fail(c, fmt::format("'{}' cannot be loaded: its template or arch is unknown here", c.argument));
            app.variants().select(id);
            break;
        }
        case ScriptCommand::Kind::Run:
        case ScriptCommand::Kind::Fault: {
            RunModel& runs = model.runs();
            const bool compiled = c.kind == ScriptCommand::Kind::Fault || model.compileIdle();
            if (waitFor(c, compiled && runs.runnerState() != RunnerState::Probing, kCompileWaitCap, "the compile and the GPU probe")) return;
            if (runs.runnerState() != RunnerState::Ready) fail(c, "cannot run: " + runs.unavailableReason());
            if (c.kind == ScriptCommand::Kind::Fault) {
                runs.startPlantedFault(c.argument);
            } else {
                try {
                    model.runCurrent();
                } catch (const engine::InputError& e) {
                    fail(c, std::string("cannot run: ") + e.what());
                }
            }
            break;
        }
        case ScriptCommand::Kind::WaitRun: {
            RunModel& runs = model.runs();
            if (waitFor(c, !runs.running(), kRunWaitCap, "the run")) return;
            model.update();  // the report lands in the history on the next update
            if (!runs.history().empty()) {
                const engine::RunReport& r = runs.history().back().report;
                std::string outcome = r.ok ? fmt::format("{} {:.4f} ms {:.2f} TFLOP/s {:.1f} GB/s", engine::verdictText(r.correctness.verdict()),
                                                         r.medianMs, r.tflops, r.gbps)
                                           : "failed: " + r.error;
                if (const auto* b = r.primaryBaseline(); r.ok && b && b->speedup > 0) outcome += fmt::format(" {:.3f}x {}", b->speedup, b->name);
                std::cerr << fmt::format("kernel-explorer: run: {}: {}\n", r.variant, outcome);
            }
            break;
        }
        case ScriptCommand::Kind::FileDialog:
            if (c.argument == "new") app.newSession();
            else if (c.argument == "open") app.openSession();
            else app.saveSessionAs();
            break;
        case ScriptCommand::Kind::Sweep:
            if (stepSweep(c, app)) return;
            break;
        case ScriptCommand::Kind::Tiles:
            if (stepTiles(c, app)) return;
            break;
        case ScriptCommand::Kind::Code:
            if (stepCode(c, app)) return;
            break;
        case ScriptCommand::Kind::Workspace:
            if (stepWorkspace(c, app)) return;
            break;
        case ScriptCommand::Kind::UserKernel:
        case ScriptCommand::Kind::Flag:
        case ScriptCommand::Kind::Share:
            if (stepUser(c, app)) return;
            break;
        case ScriptCommand::Kind::Tutorial:
            if (stepTutorial(c, app)) return;
            break;
        case ScriptCommand::Kind::Expect:
            for (const auto& [k, v] : c.values) {
                std::string got = model.paramValue(k);
                for (const auto& [flag, value] : model.flags().values())
                    if (flag == k && got.empty()) got = value;
                if (got != v) fail(c, fmt::format("expected {}={}, the editor has {}={}", k, v, k, got.empty() ? "(none)" : got));
            }
            break;
        case ScriptCommand::Kind::Crash:
            std::cerr.flush();
            ::raise(SIGKILL);
            break;
        case ScriptCommand::Kind::CompareSelect: {
            const CompareModel& cmp = model.compare();
            const int a = cmp.find(c.argument);
            const int b = cmp.find(c.second);
            if (a < 0) variantIndex(c, app, c.argument);
            if (b < 0) variantIndex(c, app, c.second);
            app.showView("compare");
            app.compare().selectPair(a, b);
            break;
        }
        case ScriptCommand::Kind::CompareTab:
            app.showView("compare");
            app.compare().selectDiffTab(c.argument == "ptx" ? DiffTab::Ptx : c.argument == "sass" ? DiffTab::Sass : DiffTab::Source);
            break;
        case ScriptCommand::Kind::ExportCompare:
            if (!app.compare().exportTable(c.argument)) fail(c, app.compare().lastExportMessage());
            break;
        case ScriptCommand::Kind::Frames:
            if (m_waitFrames < 0) m_waitFrames = c.count;
            if (m_waitFrames > 0) {
                --m_waitFrames;
                return;
            }
            m_waitFrames = -1;
            break;
        case ScriptCommand::Kind::Screenshot:
            // Let the layout settle, then ask for this frame's pixels; the next step moves on.
            if (m_waitFrames < 0) m_waitFrames = kSettleFrames;
            if (m_waitFrames > 0) {
                --m_waitFrames;
                if (m_waitFrames == 0) m_screenshot = c.argument;
                return;
            }
            m_waitFrames = -1;
            break;
        }
        ++m_pc;
    }
}

}  // namespace kx::app
