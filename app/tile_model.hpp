// State of the Tiles view: the tile layout (engine::TileScene) of the editor's live config, the
// device it is placed on, the block tile and warp the user picked, and the K-loop animation clock.
//
// The scene follows the config, the arch, the problem sizes of the Run panel and the compile:
// once ptxas's report for the current config lands its register count replaces the manifest's
// estimate, so the blocks per SM and the waves are the compiled kernel's. Recomputed only when one
// of those changes (a few milliseconds at most, on the UI thread like the occupancy calculator).
#pragma once

#include "analysis/tile_layout.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kx::app {

class ExplorerModel;

class TileModel {
public:
    explicit TileModel(const ExplorerModel& model) : m_model(model) {}

    // Once per frame before drawing: recomputes the scene when an input changed, and moves the
    // animation clock on by dt seconds unless paused.
    void update(double dt);

    // nullopt with message() saying why: no template, no tile view for it, an invalid config...
    const std::optional<engine::TileScene>& scene() const { return m_scene; }
    const std::string& message() const { return m_message; }
    // Notes on the inputs: sizes the Run panel holds that were not usable, registers not compiled yet.
    const std::string& note() const { return m_note; }

    // The device of the SM count: the arch's (the H100 SXM for sm_90) until the user picks one.
    const std::string& deviceId() const { return m_deviceId; }
    void pickDevice(const std::string& id);

    // The block tile shown in the block and warp panels (a raster id), and the warp in the warp panel.
    long long selectedTile() const { return m_selectedTile; }
    void selectTile(long long id);
    int selectedWarp() const { return m_selectedWarp; }
    void selectWarp(int warp) { m_selectedWarp = warp; }

    // The K-loop animation: a step lasts kStepSeconds; the position runs over the first k-tiles.
    static constexpr double kStepSeconds = 1.2;
    bool paused() const { return m_paused; }
    void setPaused(bool paused) { m_paused = paused; }
    // Pauses at step n (scripts and tests: a still picture).
    void showStep(long long n);
    long long step() const;        // the k-tile being multiplied
    double stepPhase() const;      // 0..1 through it

private:
    struct Key {
        std::uint64_t generation = 0;
        std::string sizes;
        std::string device;
        int registers = -1;
        bool operator==(const Key&) const = default;
    };
    Key currentKey() const;
    void recompute(const Key& key);
    long long stepCount() const;

    const ExplorerModel& m_model;
    std::optional<Key> m_builtFor;
    std::optional<engine::TileScene> m_scene;
    std::string m_message, m_note;
    std::string m_deviceId;
    bool m_userPickedDevice = false;
    long long m_selectedTile = 0;
    int m_selectedWarp = 0;
    bool m_paused = false;
    double m_clock = 0;  // seconds of animation
};

}  // namespace kx::app
