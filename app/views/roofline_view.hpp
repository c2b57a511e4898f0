// The roofline of a named device with the current variant on it: memory and compute ceilings
// (datasheet, and measured ones when a calibration is added), ridge points, the variant's
// predicted point (its arithmetic intensity from the template's FLOP and byte formulas at the
// default problem sizes, placed on the roof it can reach), and measured runs from the model.
// Exports the chart as PNG and the model as CSV.
#pragma once

#include "analysis/roofline.hpp"
#include "run/calibration.hpp"
#include "views/view.hpp"
#include "widgets/chart_scale.hpp"

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

protected:
    void drawContent() override;

private:
    // One line on the chart: several ceilings with the same value share it (FP16/BF16 tensor).
    struct CeilingLine {
        std::string label;           // "FP16 / BF16 tensor  989.5 TFLOP/s"
        engine::CeilingKind kind = engine::CeilingKind::Compute;
        bool measured = false;
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // data space
        int colour = 0;              // index into ChartColours::series
    };

    void chooseDevice();  // follows the arch until the user picks a device
    // Follows the device until the user picks one: the calibration whose device name shares the
    // datasheet name's model ("H100"), the newest of them; else none.
    void chooseCalibration();
    void readCalibrations();  // listCalibrations(), keeping the selection
    void drawCalibrationCombo();
    void rebuild();       // ceilings, ridges, points, ranges: only when an input changed
    void drawToolbar();
    void drawChart(float height);
    void drawFootnote();
    std::string defaultFileStem() const;

    std::string m_deviceId;
    bool m_userPicked = false;
    std::string m_archFollowed;    // the arch the automatic choice was made for
    bool m_showTensor = true;

    // Measured ceilings (kx calibrate) found in the cache; read on first draw and whenever the
    // combo opens, so a calibration made while the app runs shows up.
    std::vector<engine::Calibration> m_calibrations;
    bool m_calibrationsRead = false;
    int m_calibration = -1;           // index into m_calibrations; -1: none
    bool m_calibrationPicked = false;
    std::string m_calibrationFor;     // the device the automatic choice was made for

    // What the chart data below was built for.
    struct Key {
        std::string device;
        std::uint64_t generation = 0;
        std::size_t measured = 0;
        bool tensor = true;
        std::string calibration;  // device and date of the measured ceilings; empty: none
        bool operator==(const Key&) const = default;
    };
    std::optional<Key> m_builtFor;
    std::optional<engine::RooflineModel> m_model;
    std::vector<CeilingLine> m_lines;
    std::vector<engine::RidgePoint> m_ridges;
    std::vector<double> m_ridgeX, m_ridgeY;
    std::optional<engine::RooflinePoint> m_predicted;
    std::string m_predictedUnit;       // the roof it was placed on
    std::string m_predictedNote;       // why there is no point, when there is none
    std::vector<double> m_measuredX, m_measuredY;
    chart::Scale m_xScale{chart::ScaleKind::Log10, 0.1, 1000};
    chart::Scale m_yScale{chart::ScaleKind::Log10, 1e11, 1e15};

    std::shared_ptr<RegionPng> m_capture;  // shared with the draw-list callback
    std::string m_exportMessage;
    bool m_exportFailed = false;
};

}  // namespace kx::app
