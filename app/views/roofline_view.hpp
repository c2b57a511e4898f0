// The roofline of a device with the current variant on it. The engine builds the whole scene
// (analysis/roofline_scene.hpp: device for the arch, ceilings the kernel can use, the predicted
// point from the template's traffic model, measured runs, label boxes that never overlap); this
// view only draws it, the same data `kx roofline` prints. Exports the chart as PNG and CSV.
#pragma once

#include "analysis/higher_roofs.hpp"
#include "analysis/roofline_scene.hpp"
#include "run/calibration.hpp"
#include "views/view.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

struct RegionPng;

class RooflineView final : public View {
public:
    explicit RooflineView(ViewContext context);
    ~RooflineView() override;

    // Writes the chart region as PNG at the end of the next frame's rendering (from the GL back
    // buffer, so what is saved is exactly what is drawn). The outcome shows in the panel and in
    // lastExportMessage().
    void requestPng(std::filesystem::path file);
    // Writes engine::rooflineCsv of the current device and points. Returns false with a message.
    bool exportCsv(const std::filesystem::path& file);
    // True while a requested PNG has not been written yet.
    bool pngPending() const;
    const std::string& lastExportMessage() const;

    // The scene drawn last (the engine's; tests read its labels and points).
    const engine::RooflineScene* scene() const { return m_scene ? &*m_scene : nullptr; }
    // The label boxes of the last frame, in plot pixels (empty before the chart was drawn).
    const std::vector<engine::SceneLabel>& labels() const { return m_labels; }
    // Templates of the same problem on units with a higher roof (engine::higherRoofs), as the
    // footnote offers them; and opening the i-th (0-based) in the editor, as its button does:
    // false when there is none.
    const std::vector<engine::HigherRoof>& higherRoofs() const { return m_higher; }
    bool openHigherRoof(std::size_t index);

protected:
    void drawContent() override;

private:
    // The device drawn: the user's pick, else one of the arch's family (empty when none is listed).
    std::string drawnDeviceId() const;
    // Follows the device until the user picks one: the newest calibration of the same model.
    void chooseCalibration();
    void readCalibrations();  // listCalibrations(), keeping the selection
    void drawCalibrationCombo();
    void rebuild();       // the scene, only when an input changed
    void drawToolbar();
    void drawChart(float height);
    void drawFootnote();
    std::string defaultFileStem() const;

    void drawHigherRoofs();
    std::vector<std::string> higherRoofLabels() const;  // "gemm_mma 14.8x", one per higher roof
    int higherRoofRows() const;                         // the lines drawHigherRoofs takes now
    std::string m_deviceId;       // the user's pick; empty: follow the arch
    bool m_allRoofs = false;

    // Measured ceilings (kx calibrate) found in the cache; read on first draw and whenever the
    // combo opens, so a calibration made while the app runs shows up.
    std::vector<engine::Calibration> m_calibrations;
    bool m_calibrationsRead = false;
    int m_calibration = -1;           // index into m_calibrations; -1: none
    bool m_calibrationPicked = false;
    std::string m_calibrationFor;     // the device the automatic choice was made for

    // What the scene below was built for.
    struct Key {
        std::string device;
        std::string arch;
        std::uint64_t generation = 0;
        std::size_t measured = 0;
        bool allRoofs = false;
        int calibration = -1;
        bool operator==(const Key&) const = default;
    };
    std::optional<Key> m_builtFor;
    std::optional<engine::RooflineScene> m_scene;
    std::vector<engine::HigherRoof> m_higher;
    std::vector<engine::SceneLabel> m_labels;

    std::shared_ptr<RegionPng> m_capture;  // shared with the draw-list callback
    std::string m_exportMessage;
    bool m_exportFailed = false;
};

}  // namespace kx::app
