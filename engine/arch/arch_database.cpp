// Loading architectures and devices from the XML files under assets/ (format: assets/README.md):
// what each file must hold and the checks across its values. Reading XML is in arch_xml.cpp.
//
// Index
// [SECTION] Architectures
// [SECTION] Devices
// [SECTION] ArchDatabase

#include "arch/arch_database.hpp"

#include "arch/arch_xml.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace kx::engine {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;
using namespace arch_xml;

// The peak-throughput units a device may list. A closed set, so that a typo ("bf16_tensr") is an
// error instead of a roofline that silently lacks its ceiling.
const std::set<std::string> kPeakUnits = {"fp64",        "fp64_tensor", "fp32",        "tf32_tensor",
                                          "fp16_tensor", "bf16_tensor", "fp8_tensor",  "int8_tensor"};

// Lower-case letters, digits and '_' only: arch names and device ids also name folders and
// cache entries.
bool isPlainName(const std::string& name) {
    return std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// Whether value is a plain name; when not, an error on line naming `what` ("<device> attribute 'id'").
bool requirePlainName(EntryReport& report, int line, const std::string& what, const std::string& value) {
    if (isPlainName(value)) return true;
    report.error(line, what + ": \"" + value + "\" may hold only lower-case letters, digits and '_'");
    return false;
}

// Where an entry (Arch, DeviceSpec) was read from, for the messages that point at it.
template <class Entry>
void setOrigin(Entry& entry, const EntryReport& report, const XMLElement* root) {
    entry.file = report.file();
    entry.line = root->GetLineNum();
}

// [SECTION] Architectures

// One attribute of a limits element and the field it is read into: a count, a byte count
// (Unit::Bytes), or a list of whole numbers.
struct LimitField {
    LimitField(const char* attribute, int* value, long long minValue = 1, Unit unit = Unit::None)
        : attribute(attribute), value(value), minValue(minValue), unit(unit) {}
    LimitField(const char* attribute, std::vector<int>* list, long long minValue) : attribute(attribute), list(list), minValue(minValue) {}
    const char* attribute;
    int* value = nullptr;
    std::vector<int>* list = nullptr;
    long long minValue = 1;
    Unit unit = Unit::None;
};

struct LimitElement {
    const char* name;
    std::vector<LimitField> fields;
};

// Each element's line (0 when missing), for the cross-checks' messages.
using LimitLines = std::map<std::string, int>;

// Reads the required child elements of root in order, each attribute into its field, so that
// errors come in the order of the table.
LimitLines readLimits(EntryReport& report, const XMLElement* root, const std::vector<LimitElement>& table) {
    LimitLines lines;
    for (const LimitElement& element : table) {
        ElementReader reader(report, requireChild(report, root, element.name));
        for (const LimitField& f : element.fields) {
            if (f.list) *f.list = reader.integerList(f.attribute, f.minValue);
            else if (f.unit == Unit::Bytes) *f.value = reader.bytes(f.attribute, f.minValue);
            else *f.value = reader.count(f.attribute, f.minValue);
        }
        lines[element.name] = reader.line();
    }
    return lines;
}

void readNvidiaLimits(EntryReport& report, const XMLElement* root, Arch& arch) {
    NvidiaLimits& nv = arch.nv;
    const LimitLines line = readLimits(
        report, root,
        {{"compute", {{"major", &nv.computeMajor}, {"minor", &nv.computeMinor, 0}}},
         {"threads", {{"warp_size", &arch.warpSize}, {"per_block", &nv.maxThreadsPerBlock}, {"per_sm", &nv.maxThreadsPerSm}}},
         {"residency", {{"blocks_per_sm", &nv.maxBlocksPerSm}, {"warps_per_sm", &nv.maxWarpsPerSm}}},
         {"registers",
          {{"per_sm", &nv.regsPerSm}, {"per_block", &nv.regsPerBlock}, {"max_per_thread", &nv.maxRegsPerThread}, {"alloc_unit", &nv.regAllocUnit}}},
         {"shared_memory",
          {{"per_sm", &nv.smemPerSm, 1, Unit::Bytes},
           {"per_block", &nv.smemPerBlock, 1, Unit::Bytes},
           {"per_block_optin", &nv.smemPerBlockOptin, 1, Unit::Bytes},
           {"reserved_per_block", &nv.smemReservedPerBlock, 0, Unit::Bytes},
           {"alloc_unit", &nv.smemAllocUnit, 1, Unit::Bytes},
           {"carveout_kib", &nv.carveoutStepsKiB, 0}}},
         {"barriers", {{"per_block", &nv.barriersPerBlock}}}});

    // Cross-checks catch the typos that single values cannot show, such as a threads-per-SM
    // figure copied from another architecture. Only run on clean values, so that one bad
    // attribute gives one message.
    if (!report.ok()) return;
    if (nv.maxWarpsPerSm * arch.warpSize != nv.maxThreadsPerSm)
        report.error(line.at("residency"), "warps_per_sm (" + std::to_string(nv.maxWarpsPerSm) + ") x warp_size (" +
                                               std::to_string(arch.warpSize) + ") must equal the threads per_sm (" +
                                               std::to_string(nv.maxThreadsPerSm) + ")");
    if (nv.maxThreadsPerBlock > nv.maxThreadsPerSm)
        report.error(line.at("threads"), "threads per_block exceeds threads per_sm");
    if (nv.regsPerBlock > nv.regsPerSm) report.error(line.at("registers"), "registers per_block exceeds per_sm");
    if (nv.smemPerBlock > nv.smemPerBlockOptin || nv.smemPerBlockOptin > nv.smemPerSm)
        report.error(line.at("shared_memory"), "shared memory must satisfy per_block <= per_block_optin <= per_sm");
    const std::vector<int>& steps = nv.carveoutStepsKiB;
    if (!std::is_sorted(steps.begin(), steps.end()) ||
        std::adjacent_find(steps.begin(), steps.end()) != steps.end())
        report.error(line.at("shared_memory"), "carveout_kib must be in increasing order");
    else if (static_cast<long long>(steps.back()) * 1024 != nv.smemPerSm)
        report.error(line.at("shared_memory"), "the largest carveout step (" + std::to_string(steps.back()) +
                                                   " KiB) must equal per_sm (" + std::to_string(nv.smemPerSm) + " bytes)");
}

void readAmdLimits(EntryReport& report, const XMLElement* root, Arch& arch) {
    AmdLimits& amd = arch.amd;
    const LimitLines line = readLimits(
        report, root,
        {{"wave", {{"size", &arch.warpSize}, {"max_per_simd", &amd.maxWavesPerSimd}}},
         {"compute_unit", {{"simds", &amd.simdsPerCu}, {"max_threads_per_workgroup", &amd.maxThreadsPerWorkgroup}}},
         {"vgprs", {{"per_simd", &amd.vgprsPerSimd}, {"max_per_wave", &amd.maxVgprsPerWave}, {"alloc_granule", &amd.vgprAllocGranule}}},
         {"sgprs", {{"per_simd", &amd.sgprsPerSimd}, {"max_per_wave", &amd.maxSgprsPerWave}, {"alloc_granule", &amd.sgprAllocGranule}}},
         {"lds",
          {{"per_cu", &amd.ldsPerCu, 1, Unit::Bytes},
           {"max_per_workgroup", &amd.maxLdsPerWorkgroup, 1, Unit::Bytes},
           {"alloc_granule", &amd.ldsAllocGranule, 1, Unit::Bytes}}}});

    if (!report.ok()) return;
    if (amd.maxVgprsPerWave > amd.vgprsPerSimd) report.error(line.at("vgprs"), "max_per_wave exceeds per_simd");
    if (amd.maxSgprsPerWave > amd.sgprsPerSimd) report.error(line.at("sgprs"), "max_per_wave exceeds per_simd");
    if (amd.maxLdsPerWorkgroup > amd.ldsPerCu) report.error(line.at("lds"), "max_per_workgroup exceeds per_cu");
    if (static_cast<long long>(amd.maxThreadsPerWorkgroup) >
        static_cast<long long>(arch.warpSize) * amd.maxWavesPerSimd * amd.simdsPerCu)
        report.error(line.at("compute_unit"), "max_threads_per_workgroup exceeds what the CU can hold (size x max_per_simd x simds)");
}

// The name also names folders and cache entries (DIR/<arch>/ of a batch), so it may hold only
// lower-case letters, digits and '_', and it must be the file's name: sm_90.xml defines sm_90,
// so that a copied file cannot quietly stand in for another arch. A prefix ending in '_' may set
// the order files are read in (a_sm_80.xml), which decides which of two duplicates wins.
void checkArchFileName(EntryReport& report, const XMLElement* root, const std::string& name) {
    if (name.empty()) return;
    const int line = root->FindAttribute("name")->GetLineNum();
    if (!requirePlainName(report, line, "<arch> attribute 'name'", name)) return;
    const std::string stem = fs::path(report.file()).stem().string();
    const bool prefixed = stem.size() > name.size() && stem.compare(stem.size() - name.size(), name.size(), name) == 0 &&
                          stem[stem.size() - name.size() - 1] == '_';
    if (stem != name && !prefixed) report.error(line, "<arch> attribute 'name': \"" + name + "\" differs from the file's name " + stem + ".xml");
}

std::optional<Arch> readArch(EntryReport& report, const XMLElement* root) {
    Arch arch;
    setOrigin(arch, report, root);

    ElementReader head(report, root);
    arch.name = head.text("name");
    arch.family = head.text("family");
    const std::string vendor = head.text("vendor");
    if (vendor == "nvidia") {
        arch.vendor = Vendor::Nvidia;
    } else if (vendor == "amd") {
        arch.vendor = Vendor::Amd;
    } else {
        if (!vendor.empty())
            report.error(root->FindAttribute("vendor")->GetLineNum(),
                         "<arch> attribute 'vendor': unknown vendor \"" + vendor + "\" (expected nvidia or amd)");
        return std::nullopt;  // the limits cannot be read without knowing whose they are
    }

    arch.compilable = head.boolean("compilable");

    // The name is what compilers are given, so its form is checked against the vendor's spelling.
    const std::string_view prefix = arch.vendor == Vendor::Nvidia ? "sm_" : "gfx";
    if (!arch.name.empty() && arch.name.rfind(prefix, 0) != 0)
        report.error(root->FindAttribute("name")->GetLineNum(),
                     "<arch> attribute 'name': \"" + arch.name + "\" is not a " + vendor + " target name (" +
                         std::string(prefix) + "...)");

    if (arch.vendor == Vendor::Nvidia)
        readNvidiaLimits(report, root, arch);
    else
        readAmdLimits(report, root, arch);

    ElementReader l2(report, requireChild(report, root, "l2"));
    arch.l2Bytes = l2.largeBytes("bytes");  // 0: no published figure
    arch.source = readSource(report, root);

    if (!report.ok()) return std::nullopt;
    // Checked last, so that a file with bad values reports those rather than its name.
    checkArchFileName(report, root, arch.name);
    if (!report.ok()) return std::nullopt;
    return arch;
}

// [SECTION] Devices

std::optional<DeviceSpec> readDevice(EntryReport& report, const XMLElement* root) {
    ElementReader head(report, root);
    DeviceSpec device;
    setOrigin(device, report, root);
    device.id = head.text("id");
    device.name = head.text("name");
    device.arch = head.text("arch");
    requirePlainName(report, root->GetLineNum(), "<device> attribute 'id'", device.id);

    ElementReader compute(report, requireChild(report, root, "compute"));
    device.smCount = compute.count("units");
    device.boostClockMhz = compute.real("boost_clock_mhz");

    ElementReader memory(report, requireChild(report, root, "memory"));
    device.memoryGiB = memory.real("capacity_gib");
    device.memBandwidthGBs = memory.real("bandwidth_gbs");

    ElementReader l2(report, requireChild(report, root, "l2"));
    device.l2Bytes = l2.largeBytes("bytes", 1);

    for (const XMLElement* p = root->FirstChildElement("peak"); p; p = p->NextSiblingElement("peak")) {
        ElementReader peak(report, p);
        const std::string unit = peak.text("unit");
        const double tflops = peak.real("dense_tflops");
        if (unit.empty()) continue;
        if (!kPeakUnits.count(unit)) {
            std::string known;
            for (const std::string& u : kPeakUnits) known += (known.empty() ? "" : ", ") + u;
            report.error(p->GetLineNum(), "<peak> attribute 'unit': unknown unit \"" + unit + "\" (known: " + known + ")");
        } else if (device.peakTflops.count(unit)) {
            report.error(p->GetLineNum(), "<peak> unit \"" + unit + "\" is given twice");
        } else {
            device.peakTflops[unit] = tflops;
        }
    }
    device.source = readSource(report, root);

    if (!report.ok()) return std::nullopt;
    return device;
}

}  // namespace

// [SECTION] ArchDatabase

namespace {

// The XML files of dir in name order, each with its root element <rootName> read by
// read(report, root); add(entry, report, root) takes each entry read without errors.
template <class Read, class Add>
void readEntries(const fs::path& dir, const char* rootName, std::vector<LoadError>& errors, Read read, Add add) {
    for (const fs::path& path : xmlFilesIn(dir, errors)) {
        XMLDocument doc;
        const XMLElement* root = openRoot(doc, path, rootName, errors);
        if (!root) continue;
        EntryReport report(path.string(), errors);
        if (auto entry = read(report, root)) add(std::move(*entry), report, root);
    }
}

}  // namespace

ArchDatabase ArchDatabase::load(const fs::path& archDir, const fs::path& deviceDir) {
    ArchDatabase db;

    // Files are read in name order so that, of two files defining the same name, the same one
    // always wins and the error always points at the other.
    readEntries(archDir, "arch", db.m_errors, readArch, [&db](Arch arch, EntryReport& report, const XMLElement*) {
        if (const Arch* first = db.findArch(arch.name)) {
            report.error(arch.line, "duplicate architecture \"" + arch.name + "\" (first defined at " + first->file + ":" +
                                        std::to_string(first->line) + ")");
            return;
        }
        db.m_arches.push_back(std::move(arch));
    });
    readEntries(deviceDir, "device", db.m_errors, readDevice, [&db](DeviceSpec device, EntryReport& report, const XMLElement* root) {
        if (!db.findArch(device.arch)) {
            report.error(root->FindAttribute("arch")->GetLineNum(),
                         "device \"" + device.id + "\" names unknown architecture \"" + device.arch + "\"");
            return;
        }
        if (const DeviceSpec* first = db.findDevice(device.id)) {
            report.error(device.line, "duplicate device \"" + device.id + "\" (first defined at " + first->file + ":" +
                                          std::to_string(first->line) + ")");
            return;
        }
        db.m_devices.push_back(std::move(device));
    });

    // NVIDIA first, by compute capability, so that lists read oldest to newest; the name breaks
    // ties (sm_90 < sm_90a; sm_100 < sm_100a < sm_100f). AMD after, by name.
    const auto sortKey = [](const Arch& a) {
        const bool isNvidia = a.vendor == Vendor::Nvidia;
        return std::make_tuple(isNvidia ? 0 : 1, isNvidia ? a.nv.computeMajor : 0, isNvidia ? a.nv.computeMinor : 0,
                               std::cref(a.name));
    };
    std::stable_sort(db.m_arches.begin(), db.m_arches.end(),
                     [&](const Arch& a, const Arch& b) { return sortKey(a) < sortKey(b); });
    return db;
}

ArchDatabase ArchDatabase::loadFromDataRoot(const fs::path& dataRoot) {
    return load(dataRoot / "assets" / "arch", dataRoot / "assets" / "devices");
}

const Arch* ArchDatabase::findArch(std::string_view name) const {
    for (const Arch& a : m_arches)
        if (a.name == name) return &a;
    return nullptr;
}

const DeviceSpec* ArchDatabase::findDevice(std::string_view id) const {
    for (const DeviceSpec& d : m_devices)
        if (d.id == id) return &d;
    return nullptr;
}

}  // namespace kx::engine
