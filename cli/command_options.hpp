// kx's command line: each command's file adds its subcommand, options and action to the app
// (addXCommand); main() adds them in the order `kx --help` lists them, parses, loads the context
// and runs the action of the command given.
#pragma once

#include "commands.hpp"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace kx::cli {

// What a command does once parsed: runs with the loaded templates and arches and returns the exit
// code; bad input throws InputError (exit 2).
using CommandAction = std::function<int(Context&)>;

// The commands' actions, each with the (sub)command that chooses it. The option values an action
// reads live in the action (a shared_ptr it captures), which the table keeps alive.
class CommandTable {
public:
    void add(CLI::App* command, CommandAction action);
    // A subcommand of `parent` and its action.
    CLI::App* addSubcommand(CLI::App& parent, const std::string& name, const std::string& help, CommandAction action);
    // A subcommand of `parent` whose options fill one Args, and its action: fn(context, args).
    // Returns the subcommand and the Args, for adding the options.
    template <class Args, class Action>
    std::pair<CLI::App*, std::shared_ptr<Args>> addCommand(CLI::App& parent, const std::string& name, const std::string& help, Action fn);
    // The action of the command given on the command line (call after parsing); null for none.
    const CommandAction* chosen() const;

private:
    std::vector<std::pair<CLI::App*, CommandAction>> m_actions;
};

// [SECTION] Options several commands share

// TEMPLATE, --arch, --set and --preset.
void addVariantOptions(CLI::App* command, VariantArgs& variant);
// --flag KEY[=VALUE] (compiler flags, templates/compile_flags.hpp).
void addFlagOption(CLI::App* command, VariantArgs& variant);
// --size KEY=VALUE (problem sizes).
void addSizeOption(CLI::App* command, std::vector<std::string>& sizes);
// What picks one variant: addVariantOptions, then addFlagOption.
void addVariantAndFlagOptions(CLI::App* command, VariantArgs& variant);
// The same, then addSizeOption: a variant on a problem.
void addVariantAndFlagOptions(CLI::App* command, VariantArgs& variant, std::vector<std::string>& sizes);
inline void addVariantAndFlagOptions(CLI::App* command, SizedVariantArgs& args) { addVariantAndFlagOptions(command, args.variant, args.sizes); }

// --templates DIR: a global option that every command and subcommand also takes after its name,
// with the same meaning (repeatable anywhere).
class TemplateDirsOption {
public:
    // Adds --templates to the app and to each of its subcommands, at every depth: call once, after
    // every command is added.
    void addTo(CLI::App& app);
    // The folders given, in command-line order (before the command first, then after it).
    std::vector<std::string> dirs() const;

private:
    void addToTree(CLI::App& app, bool global);
    std::deque<std::vector<std::string>> m_given;  // one per (sub)command, the app's first
};

// [SECTION] The commands, in the order `kx --help` lists them

void addListCommands(CLI::App& app, CommandTable& table);  // templates, arches
void addGenerateCommand(CLI::App& app, CommandTable& table);
void addCompileCommand(CLI::App& app, CommandTable& table);
void addMixCommand(CLI::App& app, CommandTable& table);
void addOccupancyCommand(CLI::App& app, CommandTable& table);
void addRunCommand(CLI::App& app, CommandTable& table);
void addSessionCommand(CLI::App& app, CommandTable& table);  // session new|list|show|note|export|merge
void addSweepCommand(CLI::App& app, CommandTable& table);
void addCalibrateCommand(CLI::App& app, CommandTable& table);
void addTutorialCommand(CLI::App& app, CommandTable& table);  // tutorial list|show|check
void addTilesCommand(CLI::App& app, CommandTable& table);
void addRooflineCommand(CLI::App& app, CommandTable& table);
void addShareCommands(CLI::App& app, CommandTable& table);  // share, open

// [SECTION] Template definitions

template <class Args, class Action>
std::pair<CLI::App*, std::shared_ptr<Args>> CommandTable::addCommand(CLI::App& parent, const std::string& name, const std::string& help,
                                                                     Action fn) {
    auto args = std::make_shared<Args>();
    CLI::App* command = addSubcommand(parent, name, help, [args, fn](Context& ctx) { return fn(ctx, *args); });
    return {command, args};
}

}  // namespace kx::cli
