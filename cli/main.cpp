// kx: the engine's command-line face. Exit codes: 0 success, 1 the compiler or the GPU failed,
// 2 bad input (with a one-line reason on stderr).
#include "command_options.hpp"
#include "commands.hpp"

#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

using namespace kx;

namespace {

// Every command, in the order `kx --help` lists them.
void addCommands(CLI::App& app, cli::CommandTable& table) {
    using AddCommand = void (*)(CLI::App&, cli::CommandTable&);
    for (const AddCommand add : {cli::addListCommands, cli::addGenerateCommand, cli::addCompileCommand, cli::addMixCommand,
                                 cli::addOccupancyCommand, cli::addRunCommand, cli::addSessionCommand, cli::addSweepCommand,
                                 cli::addCalibrateCommand, cli::addTutorialCommand, cli::addTilesCommand, cli::addRooflineCommand,
                                 cli::addShareCommands})
        add(app, table);
}

// Names an unknown command plainly instead of CLI11's "A subcommand is required"; false then.
bool knownCommand(const CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--data-dir" || word == "--templates") { ++i; continue; }
        if (word.rfind("-", 0) == 0) continue;
        std::string known;
        bool found = false;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known += (known.empty() ? "" : ", ") + sub->get_name();
            found = found || sub->get_name() == word;
        }
        if (!found) std::cerr << "kx: unknown command '" << word << "' (commands: " << known << ")\n";
        return found;
    }
    return true;
}

// The arches and templates: the shipped templates, the user's own, then each --templates folder.
cli::Context loadContext(const std::string& dataDir, const std::vector<std::string>& templateDirs) {
    const std::filesystem::path root = dataDir.empty() ? engine::dataRoot() : std::filesystem::path(dataDir);
    std::vector<std::filesystem::path> userDirs = {engine::userTemplatesRoot()};
    for (const std::string& dir : templateDirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) throw engine::InputError("--templates " + dir + ": no such folder");
        userDirs.emplace_back(dir);
    }
    cli::Context ctx{engine::ArchDatabase::loadFromDataRoot(root), engine::TemplateLibrary::load(root / "templates", userDirs), root};
    for (const auto& e : ctx.arches.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";
    for (const auto& e : ctx.templates.errors()) std::cerr << "kx: warning: " << e.toString() << "\n";
    return ctx;
}

}  // namespace

int main(int argc, char** argv) {
    engine::failExitWhenStandardOutputIsLost("kx");  // `kx ... > /dev/full` must not exit 0
    CLI::App app{"kx - generate, compile and analyse GPU kernels from templates"};
    app.require_subcommand(1);
    std::string dataDir;
    app.add_option("--data-dir", dataDir, "Folder holding templates/ and assets/ (default: found next to kx)");
    cli::CommandTable table;
    addCommands(app, table);
    cli::TemplateDirsOption templateDirs;
    templateDirs.addTo(app);

    if (!knownCommand(app, argc, argv)) return 2;
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 2;
    }

    try {
        cli::Context ctx = loadContext(dataDir, templateDirs.dirs());
        if (const cli::CommandAction* action = table.chosen()) return (*action)(ctx);
    } catch (const engine::InputError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 2;
    } catch (const engine::OutputError& e) {
        std::cerr << "kx: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "kx: internal error: " << e.what() << "\n";
        return 1;
    }
    return 2;
}
