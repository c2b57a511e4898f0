// The `code ...` script commands: drive the linked Source / PTX / SASS panes (select a source
// line, show an instruction's hover, choose what sits beside the source) for tests and the
// README's screenshots.
#include "script.hpp"

#include "explorer_app.hpp"
#include "views/code_tabs_view.hpp"

#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <stdexcept>

namespace kx::app {

namespace {

bool isNumber(const std::string& s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
}

}  // namespace

void parseCodeCommand(const std::vector<std::string>& w, ScriptCommand& c) {
    c.kind = ScriptCommand::Kind::Code;
    const std::string sub = w.size() > 1 ? w[1] : "";
    c.argument = sub;
    if (sub == "select") {
        if (w.size() < 3) throw std::invalid_argument("'code select' takes a source line number or the text of a line");
        for (std::size_t i = 2; i < w.size(); ++i) c.second += (i > 2 ? " " : "") + w[i];
    } else if (sub == "hover") {
        if (w.size() < 3 || w.size() > 4 || (w[2] != "ptx" && w[2] != "sass"))
            throw std::invalid_argument("'code hover' takes ptx or sass, and optionally a line number");
        c.second = w[2];
        if (w.size() == 4 && !isNumber(w[3])) throw std::invalid_argument(fmt::format("'code hover' needs a line number, got '{}'", w[3]));
        c.count = w.size() == 4 ? std::stoi(w[3]) : 0;
    } else if (sub == "split") {
        if (w.size() != 3 || (w[2] != "ptx" && w[2] != "sass" && w[2] != "off"))
            throw std::invalid_argument("'code split' takes ptx, sass or off");
        c.second = w[2];
    } else if (sub == "print" || sub == "peak") {
        if (w.size() != 2) throw std::invalid_argument(fmt::format("'code {}' takes no argument", sub));
    } else {
        throw std::invalid_argument("'code' takes select LINE|TEXT, hover ptx|sass [N], split ptx|sass|off, peak or print");
    }
}

bool ScriptRunner::stepCode(const ScriptCommand& c, ExplorerApp& app) {
    CodeTabsView& code = app.codeTabs();
    if (c.argument == "split") {
        code.setSplit(c.second == "ptx" ? CodeSplit::Ptx : c.second == "sass" ? CodeSplit::Sass : CodeSplit::None);
        return false;
    }
    // Everything else reads the line map: wait for the compile and the disassembly.
    const bool settled = app.model().compileIdle() && code.linksSettled();
    if (waitFor(c, settled, kCompileWaitCap, "the compile and disassembly")) return true;
    const CodeLinks& links = code.links();
    if (c.argument == "select") {
        const int line = isNumber(c.second) ? std::stoi(c.second) : code.findSourceLine(c.second);
        if (line <= 0 && c.second != "0") fail(c, fmt::format("no source line holds '{}'", c.second));
        code.selectSourceLine(line);
    } else if (c.argument == "hover") {
        const CodePane pane = c.second == "ptx" ? CodePane::Ptx : CodePane::Sass;
        int line = c.count;
        if (line == 0) {
            const std::vector<int>* lines = links.linesOf(pane, links.selected());
            if (lines == nullptr || lines->empty())
                fail(c, fmt::format("the selected source line ({}) has no {} lines: 'code select' one that makes code first",
                                    links.selected(), c.second));
            line = lines->front();
        }
        code.hover(pane, line);
    } else if (c.argument == "peak") {
        if (links.peakLine() <= 0) fail(c, "no live-register information (nvdisasm is needed): " + links.sassError());
        code.showPeak();
    } else if (c.argument == "print") {
        const engine::SourceLineInfo* info = links.map().info(links.selected());
        std::cerr << fmt::format("kernel-explorer: code: line {}: {} PTX lines, {} SASS lines, peak {} live registers; "
                                 "top lines: source {}, PTX {}, SASS {}\n",
                                 links.selected(), info ? info->ptxLines.size() : 0, info ? info->sassLines.size() : 0,
                                 links.sass() ? links.sass()->peakLiveRegisters : -1, code.topLine(CodePane::Source),
                                 code.topLine(CodePane::Ptx), code.topLine(CodePane::Sass));
    }
    return false;
}

}  // namespace kx::app
