// Reading the XML files of assets/arch and assets/devices (arch_xml.hpp).
#include "arch/arch_xml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace kx::engine::arch_xml {

namespace fs = std::filesystem;
using tinyxml2::XMLAttribute;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

namespace {

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

}  // namespace

// [SECTION] Reading values

std::string ElementReader::text(const char* name) {
    const XMLAttribute* a = require(name);
    if (!a) return {};
    std::string value(trim(a->Value()));
    if (value.empty()) fail(a, name, "must not be empty");
    return value;
}

bool ElementReader::boolean(const char* name) {
    const XMLAttribute* a = require(name);
    if (!a) return false;
    const std::string_view value = trim(a->Value());
    if (value == "true") return true;
    if (value != "false") fail(a, name, "must be true or false");
    return false;
}

long long ElementReader::integer(const char* name, long long minValue, long long maxValue, Unit unit) {
    const XMLAttribute* a = require(name);
    if (!a) return 0;
    return parseInteger(a, name, trim(a->Value()), minValue, maxValue, unit).value_or(0);
}

double ElementReader::real(const char* name, bool allowZero) {
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

std::vector<int> ElementReader::integerList(const char* name, long long minValue) {
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

const XMLAttribute* ElementReader::require(const char* name) {
    if (!m_element) return nullptr;
    const XMLAttribute* a = m_element->FindAttribute(name);
    if (!a) m_report.error(line(), elementName(m_element) + " is missing required attribute '" + name + "'");
    return a;
}

void ElementReader::fail(const XMLAttribute* a, const char* name, const std::string& why) {
    m_report.error(a->GetLineNum(),
                   elementName(m_element) + " attribute '" + name + "': \"" + a->Value() + "\" " + why);
}

std::optional<long long> ElementReader::parseInteger(const XMLAttribute* a, const char* name, std::string_view text,
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

namespace {

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

}  // namespace

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

}  // namespace kx::engine::arch_xml
