#include "script.hpp"

#include "explorer_app.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

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
                } else if (c.argument != "source" && c.argument != "ptx" && c.argument != "log") {
                    throw error(fmt::format("unknown tab '{}' (source, ptx, log, occupancy or roofline)", c.argument));
                }
            }
        } else if (cmd == "set") {
            if (nargs == 0) throw error("'set' needs KEY=VALUE");
            c.kind = ScriptCommand::Kind::Set;
            for (std::size_t i = 1; i < w.size(); ++i) {
                const auto eq = w[i].find('=');
                if (eq == std::string::npos || eq == 0 || eq + 1 == w[i].size())
                    throw error(fmt::format("expected KEY=VALUE, got '{}'", w[i]));
                c.values.emplace_back(w[i].substr(0, eq), w[i].substr(eq + 1));
            }
        } else if (cmd == "pin") {
            if (nargs != 0) throw error("'pin' takes no argument");
            c.kind = ScriptCommand::Kind::Pin;
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
                                    "pin, compare-select, compare-tab, export-compare)",
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
            app.selectTab(c.argument == "ptx" ? CodeTab::Ptx : c.argument == "log" ? CodeTab::Log : CodeTab::Source);
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
        case ScriptCommand::Kind::Pin: {
            // Waits like wait-compile: a pin needs the ptxas report, the last stage to land.
            const auto now = std::chrono::steady_clock::now();
            if (!m_waitStart) m_waitStart = now;
            if (!model.compileIdle() && now - *m_waitStart < kCompileWaitCap) return;
            m_waitStart.reset();
            std::string why;
            if (!app.pinCurrent(&why)) fail(c, "cannot pin: " + why);
            break;
        }
        case ScriptCommand::Kind::CompareSelect: {
            const CompareModel& cmp = model.compare();
            const int a = cmp.find(c.argument);
            const int b = cmp.find(c.second);
            auto missing = [&](const std::string& which) {
                fail(c, fmt::format("no single pin matches '{}' ({} pinned: give a 1-based position or a name)", which,
                                    cmp.pins().size()));
            };
            if (a < 0) missing(c.argument);
            if (b < 0) missing(c.second);
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
