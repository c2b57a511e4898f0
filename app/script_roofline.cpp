// The Roofline panel's script commands: export its chart or data, and list or open the
// templates of the same problem with a higher roof, as its buttons do.
#include "script.hpp"

#include "explorer_app.hpp"
#include "views/roofline_view.hpp"

#include <fmt/format.h>

#include <iostream>
#include <stdexcept>
#include <string>

namespace kx::app {

bool ScriptRunner::stepExportRoofline(const ScriptCommand& c, ExplorerApp& app) {
    const std::filesystem::path file(c.argument);
    if (file.extension() == ".csv") {
        if (!app.roofline().exportCsv(file)) fail(c, app.roofline().lastExportMessage());
        return false;
    }
    return awaitPng(
        c, file, "the roofline chart",
        [&] {
            app.showView("roofline");
            app.roofline().requestPng(file);
        },
        [&] { return app.roofline().pngPending(); }, [&] { return app.roofline().lastExportMessage(); });
}

void ScriptRunner::stepHigherRoof(const ScriptCommand& c, ExplorerApp& app) {
    const auto& higher = app.roofline().higherRoofs();
    std::string list;
    for (const engine::HigherRoof& h : higher)
        list += fmt::format("{}{} ({}, {})", list.empty() ? "" : ", ", h.templateId, engine::unitLabel(h.unit), h.arch);
    std::cerr << "kernel-explorer: higher roofs: " << (list.empty() ? "none" : list) << "\n";
    std::size_t n = 0;
    try {
        n = static_cast<std::size_t>(std::stoul(c.argument));
    } catch (const std::exception&) {
        fail(c, "'higher-roof' takes a number (0: print only)");
    }
    if (n > 0 && !app.roofline().openHigherRoof(n - 1))
        fail(c, fmt::format("there is no higher roof {} (the Roofline panel offers {})", n, higher.size()));
}

}  // namespace kx::app
