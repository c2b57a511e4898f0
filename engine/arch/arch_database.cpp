// Loading architectures and devices from the XML files under assets/ (format: assets/README.md).
//
// Index
// [SECTION] Reporting errors
// [SECTION] Reading values
// [SECTION] Opening files
// [SECTION] Architectures
// [SECTION] Devices
// [SECTION] ArchDatabase

#include "arch/arch_database.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>

namespace kx::engine {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLAttribute;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

// The peak-throughput units a device may list. A closed set, so that a typo ("bf16_tensr") is an
// error instead of a roofline that silently lacks its ceiling.
const std::set<std::string> kPeakUnits = {"fp64",        "fp64_tensor", "fp32",        "tf32_tensor",
                                          "fp16_tensor", "bf16_tensor", "fp8_tensor",  "int8_tensor"};

// [SECTION] Reporting errors

// Collects the errors of one entry (one architecture or one device). An entry with any error is
// skipped as a whole: half an architecture, say one without its shared-memory limits, would give
// wrong verdicts quietly, while a missing one gives a clear "unknown arch".
class EntryReport {
public:
    EntryReport(std::string file, std::vector<LoadError>& errors) : m_file(std::move(file)), m_errors(errors) {}

    void error(int line, std::string message) {
        m_errors.push_back({m_file, line, std::move(message)});
        m_ok = false;
    }
    bool ok() const { return m_ok; }
    const std::string& file() const { return m_file; }

private:
    std::string m_file;
    std::vector<LoadError>& m_errors;
    bool m_ok = true;
};

// [SECTION] Reading values

std::string_view trim(std::string_view s) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

// Collapses the line breaks and indentation of a multi-line text into single spaces.
std::string collapseWhitespace(std::string_view text) {
    std::string out;
    bool pendingSpace = false;
    for (char c : trim(text)) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            pendingSpace = true;
            continue;
        }
        if (pendingSpace && !out.empty()) out += ' ';
        pendingSpace = false;
        out += c;
    }
    return out;
}

std::string elementName(const XMLElement* e) { return std::string("<") + e->Name() + ">"; }

// Byte counts may carry a binary unit ("228 KiB", "50 MiB") so that the files read like the
// documents they are checked against; every other number is plain.
enum class Unit { None, Bytes };

// Reads the attributes of one element. Each reader reports what is wrong (with the attribute's
// line) and returns a neutral value; the caller checks EntryReport::ok() at the end. A reader made
// for a missing element (nullptr) returns neutral values without reporting again: the missing
// element itself was already reported.
class ElementReader {
public:
    ElementReader(EntryReport& report, const XMLElement* element) : m_report(report), m_element(element) {}

    int line() const { return m_element ? m_element->GetLineNum() : 0; }

    std::string text(const char* name) {
        const XMLAttribute* a = require(name);
        if (!a) return {};
        std::string value(trim(a->Value()));
        if (value.empty()) fail(a, name, "must not be empty");
        return value;
    }

    bool boolean(const char* name) {
        const XMLAttribute* a = require(name);
        if (!a) return false;
        const std::string_view value = trim(a->Value());
        if (value == "true") return true;
        if (value != "false") fail(a, name, "must be true or false");
        return false;
    }

    // A whole number in [minValue, maxValue]; with Unit::Bytes, optionally followed by KiB or MiB.
    long long integer(const char* name, long long minValue, long long maxValue = INT_MAX, Unit unit = Unit::None) {
        const XMLAttribute* a = require(name);
        if (!a) return 0;
        return parseInteger(a, name, trim(a->Value()), minValue, maxValue, unit).value_or(0);
    }

    // Convenience for the many int fields of the limits structs.
    int count(const char* name, long long minValue = 1) {
        return static_cast<int>(integer(name, minValue));
    }
    int bytes(const char* name, long long minValue = 1) {
        return static_cast<int>(integer(name, minValue, INT_MAX, Unit::Bytes));
    }
    long long largeBytes(const char* name, long long minValue = 0) {
        return integer(name, minValue, LLONG_MAX, Unit::Bytes);
    }

    // A finite number > 0 (or >= 0 when zero is allowed).
    double real(const char* name, bool allowZero = false) {
        const XMLAttribute* a = require(name);
        if (!a) return 0;
        const std::string_view text = trim(a->Value());
        if (!text.empty() && text.front() == '-') {
            fail(a, name, "is negative; it must be a positive number");
            return 0;
        }
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(value)) {
            fail(a, name, "is not a number");
            return 0;
        }
        if (value == 0 && !allowZero) {
            fail(a, name, "must be greater than 0");
            return 0;
        }
        return value;
    }

    // Whole numbers separated by commas and/or spaces: "0, 8, 16, 32".
    std::vector<int> integerList(const char* name, long long minValue) {
        const XMLAttribute* a = require(name);
        if (!a) return {};
        std::vector<int> values;
        std::string_view rest = a->Value();
        while (true) {
            const size_t start = rest.find_first_not_of(" \t\r\n,");
            if (start == std::string_view::npos) break;
            rest.remove_prefix(start);
            const size_t stop = std::min(rest.find_first_of(" \t\r\n,"), rest.size());
            const auto value = parseInteger(a, name, rest.substr(0, stop), minValue, INT_MAX, Unit::None);
            if (!value) return {};
            values.push_back(static_cast<int>(*value));
            rest.remove_prefix(stop);
        }
        if (values.empty()) fail(a, name, "must list at least one number");
        return values;
    }

private:
    const XMLAttribute* require(const char* name) {
        if (!m_element) return nullptr;
        const XMLAttribute* a = m_element->FindAttribute(name);
        if (!a) m_report.error(line(), elementName(m_element) + " is missing required attribute '" + name + "'");
        return a;
    }

    void fail(const XMLAttribute* a, const char* name, const std::string& why) {
        m_report.error(a->GetLineNum(),
                       elementName(m_element) + " attribute '" + name + "': \"" + a->Value() + "\" " + why);
    }

    std::optional<long long> parseInteger(const XMLAttribute* a, const char* name, std::string_view text,
                                          long long minValue, long long maxValue, Unit unit) {
        if (!text.empty() && text.front() == '-') {
            fail(a, name, "is negative; it must be at least " + std::to_string(minValue));
            return std::nullopt;
        }
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc::result_out_of_range) {
            fail(a, name, "is too large");
            return std::nullopt;
        }
        if (ec != std::errc()) {
            fail(a, name, "is not a number");
            return std::nullopt;
        }
        const std::string_view suffix = trim(text.substr(static_cast<size_t>(end - text.data())));
        long long scale = 1;
        if (!suffix.empty()) {
            if (unit == Unit::Bytes && suffix == "KiB") {
                scale = 1024;
            } else if (unit == Unit::Bytes && suffix == "MiB") {
                scale = 1024 * 1024;
            } else {
                fail(a, name, unit == Unit::Bytes ? "is not a byte count (a whole number, optionally followed by KiB or MiB)"
                                                  : "is not a whole number");
                return std::nullopt;
            }
        }
        if (value > maxValue / scale) {
            fail(a, name, "is too large");
            return std::nullopt;
        }
        value *= scale;
        if (value < minValue) {
            fail(a, name, "is too small; it must be at least " + std::to_string(minValue));
            return std::nullopt;
        }
        return value;
    }

    EntryReport& m_report;
    const XMLElement* m_element;
};

// The one child element called name; reports it when missing or repeated.
const XMLElement* requireChild(EntryReport& report, const XMLElement* parent, const char* name) {
    const XMLElement* child = parent->FirstChildElement(name);
    if (!child) {
        report.error(parent->GetLineNum(),
                     elementName(parent) + " is missing required element <" + name + ">");
        return nullptr;
    }
    if (const XMLElement* again = child->NextSiblingElement(name))
        report.error(again->GetLineNum(), std::string("<") + name + "> appears more than once in " + elementName(parent));
    return child;
}

// The <source> text, required: every figure in these files must be traceable to a document.
std::string readSource(EntryReport& report, const XMLElement* parent) {
    const XMLElement* source = requireChild(report, parent, "source");
    if (!source) return {};
    std::string text;
    for (const XMLNode* node = source->FirstChild(); node; node = node->NextSibling())
        if (node->ToText()) text += std::string(node->Value()) + " ";
    text = collapseWhitespace(text);
    if (text.empty()) report.error(source->GetLineNum(), "<source> is empty; name the documents the figures come from");
    return text;
}

// [SECTION] Opening files

std::vector<fs::path> xmlFilesIn(const fs::path& dir, std::vector<LoadError>& errors) {
    std::vector<fs::path> files;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        errors.push_back({dir.string(), 0, "cannot read the folder: " + ec.message()});
        return files;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) {
            errors.push_back({dir.string(), 0, "cannot list the folder: " + ec.message()});
            break;
        }
        std::error_code typeError;
        if (it->path().extension() == ".xml" && it->is_regular_file(typeError)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
    return files;
}

// TinyXML2 names the element it was in only inside ErrorStr() ("... XMLElement name=threads").
std::string elementInError(const XMLDocument& doc) {
    const std::string_view text = doc.ErrorStr() ? doc.ErrorStr() : "";
    const std::string_view marker = "XMLElement name=";
    const size_t at = text.find(marker);
    if (at == std::string_view::npos) return {};
    std::string_view name = text.substr(at + marker.size());
    name = name.substr(0, name.find_first_of(" \t\r\n"));
    return name.empty() ? std::string() : "<" + std::string(name) + ">";
}

std::string describeXmlError(const XMLDocument& doc) {
    const std::string element = elementInError(doc);
    const std::string in = element.empty() ? std::string() : " in " + element;
    switch (doc.ErrorID()) {
    case tinyxml2::XML_ERROR_FILE_NOT_FOUND:
    case tinyxml2::XML_ERROR_FILE_COULD_NOT_BE_OPENED:
    case tinyxml2::XML_ERROR_FILE_READ_ERROR: return "cannot read the file";
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: return "malformed XML: the file holds no element";
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
        return "malformed XML: " + (element.empty() ? std::string("an element") : element) +
               " opened here is closed by a mismatched tag";
    case tinyxml2::XML_ERROR_PARSING_ELEMENT: return "malformed XML: cannot parse the element" + in + " (unclosed tag?)";
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE:
        return "malformed XML: cannot parse an attribute" + in + " (missing quotes or '='?)";
    case tinyxml2::XML_ERROR_PARSING_TEXT: return "malformed XML: cannot parse the text" + in + " (unescaped '<' or '&'?)";
    case tinyxml2::XML_ERROR_PARSING_COMMENT: return "malformed XML: unterminated comment";
    case tinyxml2::XML_ERROR_PARSING_DECLARATION: return "malformed XML: bad <?xml ...?> declaration";
    case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED: return "malformed XML: elements nested too deeply";
    case tinyxml2::XML_ERROR_PARSING: return "malformed XML: unexpected end of file or unclosed element" + in;
    default: return std::string("malformed XML: ") + doc.ErrorName() + in;
    }
}

// Parses path and returns its single top-level element, which must be called rootName; reports
// and returns nullptr otherwise.
const XMLElement* openRoot(XMLDocument& doc, const fs::path& path, const char* rootName,
                           std::vector<LoadError>& errors) {
    const std::string file = path.string();
    if (doc.LoadFile(file.c_str()) != tinyxml2::XML_SUCCESS) {
        errors.push_back({file, doc.ErrorLineNum(), describeXmlError(doc)});
        return nullptr;
    }
    const XMLElement* root = doc.RootElement();
    if (!root) {
        errors.push_back({file, 0, std::string("no <") + rootName + "> element"});
        return nullptr;
    }
    if (std::string_view(root->Name()) != rootName) {
        errors.push_back({file, root->GetLineNum(),
                          std::string("expected <") + rootName + "> as the top element, found " + elementName(root)});
        return nullptr;
    }
    if (const XMLElement* extra = root->NextSiblingElement()) {
        errors.push_back({file, extra->GetLineNum(),
                          std::string("one <") + rootName + "> per file; found a second top-level element " +
                              elementName(extra)});
        return nullptr;
    }
    return root;
}

// [SECTION] Architectures

void readNvidiaLimits(EntryReport& report, const XMLElement* root, Arch& arch) {
    NvidiaLimits& nv = arch.nv;

    ElementReader compute(report, requireChild(report, root, "compute"));
    nv.computeMajor = compute.count("major");
    nv.computeMinor = compute.count("minor", 0);

    ElementReader threads(report, requireChild(report, root, "threads"));
    arch.warpSize = threads.count("warp_size");
    nv.maxThreadsPerBlock = threads.count("per_block");
    nv.maxThreadsPerSm = threads.count("per_sm");

    ElementReader residency(report, requireChild(report, root, "residency"));
    nv.maxBlocksPerSm = residency.count("blocks_per_sm");
    nv.maxWarpsPerSm = residency.count("warps_per_sm");

    ElementReader registers(report, requireChild(report, root, "registers"));
    nv.regsPerSm = registers.count("per_sm");
    nv.regsPerBlock = registers.count("per_block");
    nv.maxRegsPerThread = registers.count("max_per_thread");
    nv.regAllocUnit = registers.count("alloc_unit");

    ElementReader smem(report, requireChild(report, root, "shared_memory"));
    nv.smemPerSm = smem.bytes("per_sm");
    nv.smemPerBlock = smem.bytes("per_block");
    nv.smemPerBlockOptin = smem.bytes("per_block_optin");
    nv.smemReservedPerBlock = smem.bytes("reserved_per_block", 0);
    nv.smemAllocUnit = smem.bytes("alloc_unit");
    nv.carveoutStepsKiB = smem.integerList("carveout_kib", 0);

    ElementReader barriers(report, requireChild(report, root, "barriers"));
    nv.barriersPerBlock = barriers.count("per_block");

    // Cross-checks catch the typos that single values cannot show, such as a threads-per-SM
    // figure copied from another architecture. Only run on clean values, so that one bad
    // attribute gives one message.
    if (!report.ok()) return;
    if (nv.maxWarpsPerSm * arch.warpSize != nv.maxThreadsPerSm)
        report.error(residency.line(), "warps_per_sm (" + std::to_string(nv.maxWarpsPerSm) + ") x warp_size (" +
                                           std::to_string(arch.warpSize) + ") must equal the threads per_sm (" +
                                           std::to_string(nv.maxThreadsPerSm) + ")");
    if (nv.maxThreadsPerBlock > nv.maxThreadsPerSm)
        report.error(threads.line(), "threads per_block exceeds threads per_sm");
    if (nv.regsPerBlock > nv.regsPerSm) report.error(registers.line(), "registers per_block exceeds per_sm");
    if (nv.smemPerBlock > nv.smemPerBlockOptin || nv.smemPerBlockOptin > nv.smemPerSm)
        report.error(smem.line(), "shared memory must satisfy per_block <= per_block_optin <= per_sm");
    const std::vector<int>& steps = nv.carveoutStepsKiB;
    if (!std::is_sorted(steps.begin(), steps.end()) ||
        std::adjacent_find(steps.begin(), steps.end()) != steps.end())
        report.error(smem.line(), "carveout_kib must be in increasing order");
    else if (static_cast<long long>(steps.back()) * 1024 != nv.smemPerSm)
        report.error(smem.line(), "the largest carveout step (" + std::to_string(steps.back()) +
                                      " KiB) must equal per_sm (" + std::to_string(nv.smemPerSm) + " bytes)");
}

void readAmdLimits(EntryReport& report, const XMLElement* root, Arch& arch) {
    AmdLimits& amd = arch.amd;

    ElementReader wave(report, requireChild(report, root, "wave"));
    arch.warpSize = wave.count("size");
    amd.maxWavesPerSimd = wave.count("max_per_simd");

    ElementReader cu(report, requireChild(report, root, "compute_unit"));
    amd.simdsPerCu = cu.count("simds");
    amd.maxThreadsPerWorkgroup = cu.count("max_threads_per_workgroup");

    ElementReader vgprs(report, requireChild(report, root, "vgprs"));
    amd.vgprsPerSimd = vgprs.count("per_simd");
    amd.maxVgprsPerWave = vgprs.count("max_per_wave");
    amd.vgprAllocGranule = vgprs.count("alloc_granule");

    ElementReader sgprs(report, requireChild(report, root, "sgprs"));
    amd.sgprsPerSimd = sgprs.count("per_simd");
    amd.maxSgprsPerWave = sgprs.count("max_per_wave");
    amd.sgprAllocGranule = sgprs.count("alloc_granule");

    ElementReader lds(report, requireChild(report, root, "lds"));
    amd.ldsPerCu = lds.bytes("per_cu");
    amd.maxLdsPerWorkgroup = lds.bytes("max_per_workgroup");
    amd.ldsAllocGranule = lds.bytes("alloc_granule");

    if (!report.ok()) return;
    if (amd.maxVgprsPerWave > amd.vgprsPerSimd) report.error(vgprs.line(), "max_per_wave exceeds per_simd");
    if (amd.maxSgprsPerWave > amd.sgprsPerSimd) report.error(sgprs.line(), "max_per_wave exceeds per_simd");
    if (amd.maxLdsPerWorkgroup > amd.ldsPerCu) report.error(lds.line(), "max_per_workgroup exceeds per_cu");
    if (static_cast<long long>(amd.maxThreadsPerWorkgroup) >
        static_cast<long long>(arch.warpSize) * amd.maxWavesPerSimd * amd.simdsPerCu)
        report.error(cu.line(), "max_threads_per_workgroup exceeds what the CU can hold (size x max_per_simd x simds)");
}

// The name also names folders and cache entries (DIR/<arch>/ of a batch), so it may hold only
// lower-case letters, digits and '_', and it must be the file's name: sm_90.xml defines sm_90,
// so that a copied file cannot quietly stand in for another arch. A prefix ending in '_' may set
// the order files are read in (a_sm_80.xml), which decides which of two duplicates wins.
void checkArchFileName(EntryReport& report, const XMLElement* root, const std::string& name) {
    if (name.empty()) return;
    const int line = root->FindAttribute("name")->GetLineNum();
    const bool plain = std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
    if (!plain) {
        report.error(line, "<arch> attribute 'name': \"" + name + "\" may hold only lower-case letters, digits and '_'");
        return;
    }
    const std::string stem = fs::path(report.file()).stem().string();
    const bool prefixed = stem.size() > name.size() && stem.compare(stem.size() - name.size(), name.size(), name) == 0 &&
                          stem[stem.size() - name.size() - 1] == '_';
    if (stem != name && !prefixed) report.error(line, "<arch> attribute 'name': \"" + name + "\" differs from the file's name " + stem + ".xml");
}

std::optional<Arch> readArch(EntryReport& report, const XMLElement* root) {
    Arch arch;
    arch.file = report.file();
    arch.line = root->GetLineNum();

    ElementReader head(report, root);
    arch.name = head.text("name");
    arch.family = head.text("family");
    arch.compilable = head.boolean("compilable");
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
    DeviceSpec device;
    device.file = report.file();
    device.line = root->GetLineNum();

    ElementReader head(report, root);
    device.id = head.text("id");
    device.name = head.text("name");
    device.arch = head.text("arch");
    const bool idIsIdentifier = std::all_of(device.id.begin(), device.id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!idIsIdentifier)
        report.error(root->GetLineNum(), "<device> attribute 'id': \"" + device.id +
                                             "\" may hold only lower-case letters, digits and '_'");

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

ArchDatabase ArchDatabase::load(const fs::path& archDir, const fs::path& deviceDir) {
    ArchDatabase db;

    // Files are read in name order so that, of two files defining the same name, the same one
    // always wins and the error always points at the other.
    for (const fs::path& path : xmlFilesIn(archDir, db.m_errors)) {
        XMLDocument doc;
        const XMLElement* root = openRoot(doc, path, "arch", db.m_errors);
        if (!root) continue;
        EntryReport report(path.string(), db.m_errors);
        std::optional<Arch> arch = readArch(report, root);
        if (!arch) continue;
        if (const Arch* first = db.findArch(arch->name)) {
            report.error(arch->line, "duplicate architecture \"" + arch->name + "\" (first defined at " +
                                         first->file + ":" + std::to_string(first->line) + ")");
            continue;
        }
        db.m_arches.push_back(std::move(*arch));
    }

    for (const fs::path& path : xmlFilesIn(deviceDir, db.m_errors)) {
        XMLDocument doc;
        const XMLElement* root = openRoot(doc, path, "device", db.m_errors);
        if (!root) continue;
        EntryReport report(path.string(), db.m_errors);
        std::optional<DeviceSpec> device = readDevice(report, root);
        if (!device) continue;
        if (!db.findArch(device->arch)) {
            report.error(root->FindAttribute("arch")->GetLineNum(),
                         "device \"" + device->id + "\" names unknown architecture \"" + device->arch + "\"");
            continue;
        }
        if (const DeviceSpec* first = db.findDevice(device->id)) {
            report.error(device->line, "duplicate device \"" + device->id + "\" (first defined at " + first->file +
                                           ":" + std::to_string(first->line) + ")");
            continue;
        }
        db.m_devices.push_back(std::move(*device));
    }

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
