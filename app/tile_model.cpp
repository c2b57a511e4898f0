#include "tile_model.hpp"

#include "analysis/roofline_scene.hpp"
#include "explorer_model.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>

namespace kx::app {

namespace {

// ptxas's report of the launched kernel when it belongs to the config on screen.
const engine::KernelResources* currentKernel(const ExplorerModel& model) {
    const engine::CompileResult* r = model.compileResult();
    if (!model.resultIsCurrent() || r == nullptr || !r->ok || !model.launch()) return nullptr;
    return engine::kernelNamed(r->kernels, model.launch()->kernel);
}

}  // namespace

TileModel::Key TileModel::currentKey() const {
    Key k;
    k.generation = m_model.generation();
    for (const auto& [name, text] : m_model.runs().sizeText()) k.sizes += name + "=" + text + ";";
    k.device = m_deviceId;
    if (const engine::KernelResources* kernel = currentKernel(m_model)) k.registers = kernel->registers;
    return k;
}

void TileModel::update(double dt) {
    // The device follows the arch until the user picks one: this machine's GPU when it has the
    // arch's compute capability, else the arch's usual device.
    if (const engine::Arch* arch = m_model.currentArch(); arch != nullptr && !m_userPickedDevice) {
        const engine::DeviceSpec* d = nullptr;
        if (m_model.runs().runnerState() == RunnerState::Ready)
            d = engine::deviceForGpuName(m_model.archDatabase(), *arch, m_model.runs().deviceName());
        if (d == nullptr) d = engine::defaultTileDevice(m_model.archDatabase(), *arch);
        m_deviceId = d ? d->id : std::string();
    }
    const Key key = currentKey();
    if (!m_builtFor || !(*m_builtFor == key)) recompute(key);
    if (!m_paused) m_clock += dt;
}

void TileModel::recompute(const Key& key) {
    m_builtFor = key;
    m_scene.reset();
    m_message.clear();
    m_note.clear();
    const engine::Template* tmpl = m_model.currentTemplate();
    const engine::Arch* arch = m_model.currentArch();
    if (tmpl == nullptr || arch == nullptr) {
        m_message = "Pick a template and an architecture.";
        return;
    }
    if (!engine::hasTileView(*tmpl)) {
        m_message = "No tile view for this template: its manifest has no <visual> element (templates/README.md, \"Tile view\").";
        return;
    }
    engine::TileRequest req;
    req.tmpl = tmpl;
    req.config = m_model.config();
    req.arch = arch;
    req.device = m_model.archDatabase().findDevice(m_deviceId);
    if (req.device == nullptr) {
        m_message = "No device of " + arch->name + "'s compute capability in assets/devices: pick one above.";
        return;
    }
    req.deviceArch = m_model.archDatabase().findArch(req.device->arch);
    try {
        req.sizes = tmpl->withSizes(m_model.runs().sizeText());
    } catch (const engine::InputError& e) {
        req.sizes = tmpl->defaultSizes();
        m_note = std::string("The Run panel's sizes are not usable (") + e.what() + "): showing the default sizes.";
    }
    if (const engine::KernelResources* kernel = currentKernel(m_model)) {
        req.registers = kernel->registers;
        req.registersSource = "ptxas";
        req.staticSmemBytes = kernel->sharedBytes;
    }
    try {
        m_scene = engine::computeTileScene(req);
    } catch (const engine::InputError& e) {
        m_message = e.what();
        return;
    }
    const long long tiles = m_scene->kind == engine::TileScene::Kind::Gemm ? m_scene->gemm.tiles : m_scene->blocks.grid;
    m_selectedTile = std::clamp<long long>(m_selectedTile, 0, std::max<long long>(0, tiles - 1));
    if (m_scene->kind == engine::TileScene::Kind::Gemm) {
        const auto& warps = m_scene->gemm.warps;
        m_selectedWarp = std::clamp<int>(m_selectedWarp, 0, static_cast<int>(warps.size()) - 1);
        // A producer warpgroup holds no accumulators: open on the first consumer instead.
        if (m_selectedWarp >= 0 && warps[static_cast<std::size_t>(m_selectedWarp)].producer) {
            const auto consumer = std::find_if(warps.begin(), warps.end(), [](const engine::WarpTile& w) { return !w.producer; });
            if (consumer != warps.end()) m_selectedWarp = static_cast<int>(consumer - warps.begin());
        }
    }
}

void TileModel::pickDevice(const std::string& id) {
    m_deviceId = id;
    m_userPickedDevice = true;
}

void TileModel::selectTile(long long id) { m_selectedTile = std::max<long long>(0, id); }

long long TileModel::stepCount() const {
    if (!m_scene || m_scene->kind != engine::TileScene::Kind::Gemm) return 1;
    return std::max<long long>(1, static_cast<long long>(m_scene->gemm.kSteps.size()));
}

void TileModel::showStep(long long n) {
    m_paused = true;
    m_clock = (static_cast<double>(std::clamp<long long>(n, 0, stepCount() - 1)) + 0.5) * kStepSeconds;
}

long long TileModel::step() const { return static_cast<long long>(std::floor(m_clock / kStepSeconds)) % stepCount(); }

double TileModel::stepPhase() const { return std::fmod(m_clock, kStepSeconds) / kStepSeconds; }

}  // namespace kx::app
