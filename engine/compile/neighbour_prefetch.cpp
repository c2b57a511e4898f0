#include "compile/neighbour_prefetch.hpp"

#include "compile/variant_build.hpp"

#include <algorithm>

namespace kx::engine {

std::vector<std::string> parameterValues(const ParamSpec& p) {
    std::vector<std::string> values;
    if (p.type == ParamType::Int && !p.allowed.empty())
        for (long long v : p.allowed) values.push_back(std::to_string(v));
    if (p.type == ParamType::Int && p.allowed.empty())
        for (long long v = p.minValue; v <= p.maxValue; ++v) values.push_back(std::to_string(v));
    if (p.type == ParamType::Enum)
        for (const EnumChoice& c : p.choices) values.push_back(c.name);
    if (p.type == ParamType::Bool) values = {"false", "true"};
    return values;
}

namespace {

// The values one step from `current`: for numbers the adjacent ones (towards `away` from the
// previous value first), for choices every other one.
std::vector<std::string> stepsFrom(const ParamSpec& p, const std::string& current, const std::string& previous) {
    const std::vector<std::string> values = parameterValues(p);
    const auto at = std::find(values.begin(), values.end(), current);
    if (at == values.end()) return {};
    std::vector<std::string> out;
    if (p.type != ParamType::Int) {
        for (const std::string& v : values)
            if (v != current) out.push_back(v);
    } else {
        const auto i = static_cast<std::size_t>(at - values.begin());
        if (i + 1 < values.size()) out.push_back(values[i + 1]);
        if (i > 0) out.push_back(values[i - 1]);
        // Going up from the previous value, up again is likelier than back; and back the other way.
        if (out.size() == 2 && out[0] == previous) std::swap(out[0], out[1]);
    }
    // The value the user just left is in the cache already if it compiled: try it last.
    if (auto it = std::find(out.begin(), out.end(), previous); it != out.end()) {
        out.erase(it);
        out.push_back(previous);
    }
    return out;
}

}  // namespace

std::vector<Config> neighbourConfigs(const Template& tmpl, const Config& config, const Arch& arch, const std::string& lastEdited,
                                     const std::string& previousValue) {
    std::vector<const ParamSpec*> order;
    for (const ParamSpec& p : tmpl.manifest().params)
        if (p.name == lastEdited) order.push_back(&p);
    for (const ParamSpec& p : tmpl.manifest().params)
        if (p.name != lastEdited) order.push_back(&p);
    std::vector<Config> out;
    for (const ParamSpec* p : order) {
        const auto current = config.values.find(p->name);
        if (current == config.values.end()) continue;
        for (const std::string& v : stepsFrom(*p, current->second, p->name == lastEdited ? previousValue : std::string())) {
            Config next = config;
            next.values[p->name] = v;
            try {
                if (tmpl.validate(next, arch).empty()) out.push_back(std::move(next));
            } catch (const std::exception&) {
                // A config whose formulas cannot be evaluated is no candidate.
            }
        }
    }
    return out;
}

NeighbourPrefetcher::NeighbourPrefetcher(std::shared_ptr<Compiler> compiler) : m_compiler(std::move(compiler)) {}

NeighbourPrefetcher::~NeighbourPrefetcher() { stop(); }

void NeighbourPrefetcher::stop() {
    if (m_job) m_job->cancel();
    m_job.reset();
}

void NeighbourPrefetcher::start(std::shared_ptr<const Template> tmpl, const Config& config, const Arch& arch,
                                const std::string& lastEdited, const std::string& previousValue) {
    stop();
    auto compiler = m_compiler;
    std::atomic<int>* counter = &m_ptxCompiled;
    const Arch archCopy = arch;
    m_job = m_jobs.submit("prefetch neighbours", [=](Job& job) {
        std::vector<CompileRequest> requests;
        for (const Config& c : neighbourConfigs(*tmpl, config, archCopy, lastEdited, previousValue)) {
            if (job.cancelled()) return;
            try {
                requests.push_back(prepareVariant(*tmpl, c, archCopy).request);
            } catch (const std::exception&) {
            }
        }
        // PTX first, for every neighbour: that is what an edit waits for.
        for (const CompileRequest& r : requests) {
            if (job.cancelled()) return;
            if (!compiler->compilePtx(r, false).fromCache) counter->fetch_add(1);
        }
        for (const CompileRequest& r : requests) {
            if (job.cancelled()) return;
            compiler->compile(r, false);
        }
    });
}

}  // namespace kx::engine
