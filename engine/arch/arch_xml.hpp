// Reading the XML files of assets/arch and assets/devices (format: assets/README.md): errors
// collected per entry, attribute readers that name the attribute and its line, and opening a
// file's single top-level element. Used by arch_database.cpp only.
#pragma once

#include "arch/arch.hpp"

#include <tinyxml2.h>

#include <climits>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine::arch_xml {

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

// Byte counts may carry a binary unit ("228 KiB", "50 MiB") so that the files read like the
// documents they are checked against; every other number is plain.
enum class Unit { None, Bytes };

// Reads the attributes of one element. Each reader reports what is wrong (with the attribute's
// line) and returns a neutral value; the caller checks EntryReport::ok() at the end. A reader made
// for a missing element (nullptr) returns neutral values without reporting again: the missing
// element itself was already reported.
class ElementReader {
public:
    ElementReader(EntryReport& report, const tinyxml2::XMLElement* element) : m_report(report), m_element(element) {}

    int line() const { return m_element ? m_element->GetLineNum() : 0; }

    std::string text(const char* name);  // trimmed, not empty
    bool boolean(const char* name);      // "true" or "false"

    // A whole number in [minValue, maxValue]; with Unit::Bytes, optionally followed by KiB or MiB.
    long long integer(const char* name, long long minValue, long long maxValue = INT_MAX, Unit unit = Unit::None);

    // Convenience for the many int fields of the limits structs.
    int count(const char* name, long long minValue = 1) { return static_cast<int>(integer(name, minValue)); }
    int bytes(const char* name, long long minValue = 1) { return static_cast<int>(integer(name, minValue, INT_MAX, Unit::Bytes)); }
    long long largeBytes(const char* name, long long minValue = 0) { return integer(name, minValue, LLONG_MAX, Unit::Bytes); }

    // A finite number > 0 (or >= 0 when zero is allowed).
    double real(const char* name, bool allowZero = false);

    // Whole numbers separated by commas and/or spaces: "0, 8, 16, 32".
    std::vector<int> integerList(const char* name, long long minValue);

private:
    const tinyxml2::XMLAttribute* require(const char* name);
    void fail(const tinyxml2::XMLAttribute* a, const char* name, const std::string& why);
    std::optional<long long> parseInteger(const tinyxml2::XMLAttribute* a, const char* name, std::string_view text, long long minValue,
                                          long long maxValue, Unit unit);

    EntryReport& m_report;
    const tinyxml2::XMLElement* m_element;
};

// The one child element called name; reports it when missing or repeated (nullptr when missing).
const tinyxml2::XMLElement* requireChild(EntryReport& report, const tinyxml2::XMLElement* parent, const char* name);

// The <source> text, required: every figure in these files must be traceable to a document.
std::string readSource(EntryReport& report, const tinyxml2::XMLElement* parent);

// [SECTION] Opening files

// The *.xml files of dir, sorted by file name; an unreadable folder is reported in errors.
std::vector<std::filesystem::path> xmlFilesIn(const std::filesystem::path& dir, std::vector<LoadError>& errors);

// Parses path and returns its single top-level element, which must be called rootName; reports
// and returns nullptr otherwise. The element lives as long as doc.
const tinyxml2::XMLElement* openRoot(tinyxml2::XMLDocument& doc, const std::filesystem::path& path, const char* rootName,
                                     std::vector<LoadError>& errors);

}  // namespace kx::engine::arch_xml
