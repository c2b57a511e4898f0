// Running a script (script.hpp): step() hands each command to the step function of its area,
// here for the editor, frames, sessions, runs, Compare, tutorials, sweeps and tiles, and in
// script_workspace.cpp, script_code.cpp and script_user.cpp for the others. Parsing is in
// script_parse.cpp.
#include "script.hpp"

#include "explorer_app.hpp"
#include "preset_model.hpp"
#include "templates/compile_flags.hpp"
#include "views/sweep_view.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>

namespace kx::app {

namespace {

// "20" -> 20; anything that is not a whole number of at least 1 -> nullopt.
std::optional<int> parseCount(const std::string& text) {
    std::size_t used = 0;
    try {
        const int n = std::stoi(text, &used);
        if (used == text.size() && n >= 1) return n;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// "2.5" -> 2.5; anything that is not a number above 0 -> nullopt.
std::optional<double> parseSeconds(const std::string& text) {
    std::size_t used = 0;
    try {
        const double x = std::stod(text, &used);
        if (used == text.size() && x > 0 && std::isfinite(x)) return x;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// print-launch: the launch geometry for the Run panel's sizes, the primary kernel, and the preset
// whose problem the sizes are.
void printLaunch(const ExplorerModel& model) {
    std::string sizes;
    for (const auto& [k, v] : model.sizes()) sizes += fmt::format("{}{}={}", sizes.empty() ? "" : " ", k, v);
    if (const auto& l = model.launch())
        std::cerr << fmt::format("kernel-explorer: launch: grid {} x {} x {}, block {} x {} x {}, dynamic smem {} bytes, for {}\n", l->grid[0],
                                 l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->dynamicSmemBytes, sizes);
    else
        std::cerr << fmt::format("kernel-explorer: launch: none ({})\n", model.launchError());
    std::cerr << fmt::format("kernel-explorer: primary kernel: {}\n", model.primaryKernel());
    if (const std::string preset = model.runs().presetSizes(); !preset.empty())
        std::cerr << fmt::format("kernel-explorer: sizes: the problem preset {} was tuned for\n", preset);
}

}  // namespace

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
    } else if (c.argument == "images") {
        const TutorialsView& view = app.tutorialsView();
        std::string problems;
        for (const std::string& p : view.imageProblems()) problems += "; " + p;
        std::cerr << fmt::format("kernel-explorer: tutorial: images: {} shown, {} not shown{}\n", view.imagesShown(), view.imageProblems().size(),
                                 problems);
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
        // A "Run it" action ends when the run has started; its checkpoints judge the run once it
        // has landed in the session, as they turn green for a learner when the run ends.
        const bool settled = model.compileIdle() && !model.session().busy() && !tutorials.actionBusy() && !model.runs().unsettled();
        if (waitFor(c, settled, kRunWaitCap, "the compile and the run")) return true;
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
        const std::string flag = engine::compileFlagKey(param);
        if (!t || (!t->manifest().findParam(param) && flag.empty()))
            fail(c, fmt::format("'{}' is neither a parameter of the editor's template nor a compiler flag", param));
        const std::string key = t->manifest().findParam(param) ? param : flag;
        sweeps.varyText()[key] = eq == std::string::npos ? sweeps.allValuesText(key) : arg.substr(eq + 1);
    } else if (c.argument == "preselected") {
        if (arg == "none") {
            sweeps.preselected.clear();
        } else {
            const std::vector<std::string> names = sweeps.preselectedNames();
            if (std::find(names.begin(), names.end(), arg) == names.end())
                fail(c, fmt::format("no preselected set '{}' for this template and arch (there are: {})", arg,
                                    names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
            sweeps.choosePreselected(arg);
        }
    } else if (c.argument == "sample") {
        const auto space = arg.find(' ');
        sweeps.sample = std::stoull(arg.substr(0, space));
        if (space != std::string::npos) sweeps.seed = std::stoull(arg.substr(space + 1));
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
        if (!found) fail(c, fmt::format("unknown sweep metric '{}' (tflops, gbps, baseline, time, occupancy, registers, predicted, busy)", arg));
    } else if (c.argument == "load") {
        sweeps.update();
        const int best = sweeps.bestPoint();
        if (arg != "best") fail(c, "'sweep load' takes best");
        if (best < 0) fail(c, "the sweep has no config with a value to rank by");
        sweeps.loadIntoEditor(best);
    } else if (c.argument == "export" && std::filesystem::path(arg).extension() == ".png") {
        SweepView& view = app.sweepView();
        return awaitPng(
            c, arg, "the Sweep view",
            [&] {
                view.setOpen(true);
                sweeps.update();  // the axes and colour set by earlier commands of this frame, drawn in it
                view.requestPng(arg);
            },
            [&] { return view.pngPending(); }, [&] { return view.lastMessage(); });
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
            const std::string matrix =
                scene->kind != engine::TileScene::Kind::Gemm ? std::string()
                : g.staged ? fmt::format("; computes {} {} x {}; shared memory {} B per stage", g.cName, g.m, g.n, g.stageBytes)
                           : fmt::format("; computes {} {} x {}; shared memory: none", g.cName, g.m, g.n);
            std::string drawn = view.blockGridText().empty() ? std::string() : "; " + view.blockGridText();
            if (scene->kind == engine::TileScene::Kind::Gemm)
                drawn += fmt::format("; {} {} shown", g.warpThreads == 128 ? "warpgroup" : "warp", tiles.selectedWarp());
            std::cerr << fmt::format("kernel-explorer: tiles: {}: {} tiles, {} waves of {}, {} blocks/SM ({} registers){}; on {}{}\n",
                                     scene->configName, count, w.waves, w.capacity, w.occupancy.blocksPerSm, w.registersSource, matrix, w.device, drawn);
        }
    } else if (c.argument == "export") {
        const std::filesystem::path file(c.values[0].first);
        return awaitPng(
            c, file, "the Tiles view",
            [&] {
                if (!tiles.scene()) fail(c, "no tile view: " + tiles.message());
                view.requestPng(file);
            },
            [&] { return view.pngPending(); }, [&] { return view.lastExportMessage(); });
    }
    return false;
}

bool ScriptRunner::awaitPng(const ScriptCommand& c, const std::filesystem::path& file, const char* drawnBy, const std::function<void()>& request,
                            const std::function<bool()>& pending, const std::function<std::string()>& outcome) {
    // Read back while a frame renders: ask, then wait for that frame.
    if (m_waitFrames < 0) {
        request();
        m_waitFrames = kSettleFrames + 2;
    }
    if (pending()) {
        if (--m_waitFrames > 0) return true;
        fail(c, fmt::format("{} was not drawn, so no PNG was written", drawnBy));
    }
    m_waitFrames = -1;
    if (!std::filesystem::exists(file)) fail(c, outcome());
    return false;
}

void ScriptRunner::stepEditor(const ScriptCommand& c, ExplorerApp& app) {
    ExplorerModel& model = app.model();
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
    case ScriptCommand::Kind::Preset:
        try {
            PresetModel(model).apply(c.argument);
        } catch (const engine::InputError& e) {
            fail(c, e.what());
        }
        break;
    case ScriptCommand::Kind::Expect:
        for (const auto& [k, v] : c.values) {
            std::string got = model.paramValue(k);
            for (const auto& [flag, value] : model.flags().values())
                if (flag == k && got.empty()) got = value;
            if (got != v) fail(c, fmt::format("expected {}={}, the editor has {}={}", k, v, k, got.empty() ? "(none)" : got));
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
    case ScriptCommand::Kind::CloseView:
        if (!app.showView(c.argument, false)) fail(c, fmt::format("unknown view '{}'", c.argument));
        break;
    case ScriptCommand::Kind::Front:
        std::cerr << fmt::format("kernel-explorer: front: {}\n", app.frontWindow());
        break;
    case ScriptCommand::Kind::Size:
        for (const auto& [k, v] : c.values) {
            auto it = model.runs().sizeText().find(k);
            if (it == model.runs().sizeText().end()) fail(c, fmt::format("'{}' is not a problem size of the template", k));
            it->second = v;
        }
        break;
    case ScriptCommand::Kind::RunOptions:
        for (const auto& [k, v] : c.values) {
            RunModel& runs = model.runs();
            if (k == "counters" && (v == "on" || v == "off")) {
                runs.memoryCounters = v == "on";
            } else if (k == "reps" && parseCount(v)) {
                runs.reps = *parseCount(v);
            } else if (k == "timeout" && parseSeconds(v)) {
                runs.timeoutSeconds = *parseSeconds(v);
            } else {
                fail(c, fmt::format("unknown run option '{}={}' (counters=on|off, reps=N, timeout=SECONDS)", k, v));
            }
        }
        break;
    case ScriptCommand::Kind::PrintLaunch: printLaunch(model); break;
    case ScriptCommand::Kind::PrintWaves:
        if (app.occupancy().wavesText().empty()) fail(c, "the Occupancy panel shows no waves (open it with 'tab occupancy' after a compile)");
        std::cerr << "kernel-explorer: waves: " << app.occupancy().wavesText() << "\n";
        if (!app.occupancy().splitKHintText().empty()) std::cerr << "kernel-explorer: split-K: " << app.occupancy().splitKHintText() << "\n";
        break;
    case ScriptCommand::Kind::LoadVariant: {
        const int i = variantIndex(c, app, c.argument);
        const std::int64_t id = model.compare().pins()[static_cast<std::size_t>(i)]->variantId;
        if (!model.loadVariant(id)) fail(c, fmt::format("'{}' cannot be loaded: its template or arch is unknown here", c.argument));
        app.variants().select(id);
        break;
    }
    case ScriptCommand::Kind::FileDialog:
        if (c.argument == "new") app.newSession();
        else if (c.argument == "open") app.openSession();
        else app.saveSessionAs();
        break;
    default:
        break;
    }
}

bool ScriptRunner::stepFrames(const ScriptCommand& c, ExplorerApp& app) {
    switch (c.kind) {
    case ScriptCommand::Kind::WaitCompile: {
        const auto now = std::chrono::steady_clock::now();
        if (!m_waitStart) m_waitStart = now;
        // The GPU probe too: what the panels show (the Run panel's GPU, the roofline's device)
        // must not depend on how fast the runner answered.
        const bool probing = app.model().runs().runnerState() == RunnerState::Probing;
        if (!app.model().compileIdle() || probing) {
            if (now - *m_waitStart < kCompileWaitCap) return true;
            std::cerr << fmt::format("{}:{}: warning: {} still running after {} s; going on\n", m_script.file, c.line,
                                     probing ? "the GPU probe" : "compile", kCompileWaitCap.count());
        }
        m_waitStart.reset();
        return false;
    }
    case ScriptCommand::Kind::Frames:
        if (m_waitFrames < 0) m_waitFrames = c.count;
        if (m_waitFrames > 0) {
            --m_waitFrames;
            return true;
        }
        m_waitFrames = -1;
        return false;
    case ScriptCommand::Kind::Screenshot:
        // Let the layout settle, then ask for this frame's pixels; the next step moves on.
        if (m_waitFrames < 0) m_waitFrames = kSettleFrames;
        if (m_waitFrames > 0) {
            --m_waitFrames;
            if (m_waitFrames == 0) m_screenshot = c.argument;
            return true;
        }
        m_waitFrames = -1;
        return false;
    default:
        return false;
    }
}

bool ScriptRunner::stepKeep(const ScriptCommand& c, ExplorerApp& app) {
    // Waits like wait-compile (keeping needs the ptxas report, the last stage to land), then for
    // the session to write it.
    ExplorerModel& model = app.model();
    if (m_waitFrames < 0) {
        if (waitFor(c, model.compileIdle(), kCompileWaitCap, "the compile")) return true;
        std::string why;
        if (!app.keepCurrent(&why)) fail(c, "cannot keep: " + why);
        m_waitFrames = 0;
    }
    if (waitFor(c, !model.session().busy(), kSessionWaitCap, "writing the session")) return true;
    m_waitFrames = -1;
    if (!model.session().error().empty()) fail(c, model.session().error());
    return false;
}

bool ScriptRunner::stepSession(const ScriptCommand& c, ExplorerApp& app) {
    ExplorerModel& model = app.model();
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
    if (waitFor(c, !session.busy(), kSessionWaitCap, "the session")) return true;
    m_waitFrames = -1;
    if (!session.error().empty()) fail(c, session.error());
    // The editor follows an opened session on the next update().
    model.update();
    return false;
}

bool ScriptRunner::stepRun(const ScriptCommand& c, ExplorerApp& app) {
    ExplorerModel& model = app.model();
    RunModel& runs = model.runs();
    if (c.kind == ScriptCommand::Kind::WaitRun) {
        if (waitFor(c, !runs.running(), kRunWaitCap, "the run")) return true;
        model.update();  // the report lands in the history on the next update
        if (!runs.history().empty()) {
            const engine::RunReport& r = runs.history().back().report;
            std::string outcome = r.ok ? fmt::format("{} {:.4f} ms {:.2f} TFLOP/s {:.1f} GB/s", engine::verdictText(r.correctness.verdict()),
                                                     r.medianMs, r.tflops, r.gbps)
                                       : "failed: " + r.error;
            if (const auto* b = r.primaryBaseline(); r.ok && b && b->speedup > 0) outcome += fmt::format(" {:.3f}x {}", b->speedup, b->name);
            std::cerr << fmt::format("kernel-explorer: run: {}: {}\n", r.variant, outcome);
            // The Run panel's warning under a failed run, for the logs of scripted runs.
            if (!r.ok && runs.windowDrawnByRunGpu())
                std::cerr << fmt::format("kernel-explorer: run: note: the window is drawn by the GPU that ran it ({})\n", runs.windowRenderer);
        }
        return false;
    }
    const bool compiled = c.kind == ScriptCommand::Kind::Fault || model.compileIdle();
    if (waitFor(c, compiled && runs.runnerState() != RunnerState::Probing, kCompileWaitCap, "the compile and the GPU probe")) return true;
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
    return false;
}

void ScriptRunner::stepCompare(const ScriptCommand& c, ExplorerApp& app) {
    if (c.kind == ScriptCommand::Kind::CompareSelect) {
        const CompareModel& cmp = app.model().compare();
        const int a = cmp.find(c.argument);
        const int b = cmp.find(c.second);
        if (a < 0) variantIndex(c, app, c.argument);
        if (b < 0) variantIndex(c, app, c.second);
        app.showView("compare");
        app.compare().selectPair(a, b);
    } else if (c.kind == ScriptCommand::Kind::CompareTable) {
        std::vector<int> pins;
        for (const auto& [variant, unused] : c.values) pins.push_back(variantIndex(c, app, variant));
        app.showView("compare");
        app.compare().tickOnly(pins);
    } else if (c.kind == ScriptCommand::Kind::CompareTab) {
        app.showView("compare");
        app.compare().selectDiffTab(c.argument == "ptx" ? DiffTab::Ptx : c.argument == "sass" ? DiffTab::Sass : DiffTab::Source);
    } else if (!app.compare().exportTable(c.argument)) {
        fail(c, app.compare().lastExportMessage());
    }
}

bool ScriptRunner::stepCommand(const ScriptCommand& c, ExplorerApp& app) {
    using Kind = ScriptCommand::Kind;
    switch (c.kind) {
    case Kind::Template:
    case Kind::Arch:
    case Kind::Set:
    case Kind::Preset:
    case Kind::Expect:
    case Kind::Tab:
    case Kind::View:
    case Kind::CloseView:
    case Kind::Front:
    case Kind::Size:
    case Kind::RunOptions:
    case Kind::PrintLaunch:
    case Kind::PrintWaves:
    case Kind::LoadVariant:
    case Kind::FileDialog: stepEditor(c, app); return false;
    case Kind::ExportRoofline: return stepExportRoofline(c, app);
    case Kind::HigherRoof: stepHigherRoof(c, app); return false;
    case Kind::WaitCompile:
    case Kind::Frames:
    case Kind::Screenshot: return stepFrames(c, app);
    case Kind::Keep: return stepKeep(c, app);
    case Kind::Session:
    case Kind::Demo:
    case Kind::SaveAs:
    case Kind::Rename:
    case Kind::Notes:
    case Kind::WaitSession: return stepSession(c, app);
    case Kind::Run:
    case Kind::Fault:
    case Kind::WaitRun: return stepRun(c, app);
    case Kind::CompareSelect:
    case Kind::CompareTable:
    case Kind::CompareTab:
    case Kind::ExportCompare: stepCompare(c, app); return false;
    case Kind::Sweep: return stepSweep(c, app);
    case Kind::Tiles: return stepTiles(c, app);
    case Kind::Code: return stepCode(c, app);
    case Kind::Workspace: return stepWorkspace(c, app);
    case Kind::UserKernel:
    case Kind::Flag:
    case Kind::Share: return stepUser(c, app);
    case Kind::Tutorial: return stepTutorial(c, app);
    case Kind::GlReset:
        m_contextReset = true;  // the frame loop takes it before the next frame
        return false;
    case Kind::Crash:
        std::cerr.flush();
        ::raise(SIGKILL);
        return false;
    }
    return false;
}

void ScriptRunner::step(ExplorerApp& app) {
    while (m_pc < m_script.commands.size()) {
        if (stepCommand(m_script.commands[m_pc], app)) return;
        ++m_pc;
    }
}

}  // namespace kx::app
