#include "request_parsing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kx::runner {

namespace {

// A JSON integer within T's range. Floats are refused, even whole ones: converting one outside
// the range would be undefined behaviour, and the engine never sends them.
template <typename T>
T integer(const nlohmann::json& v, const std::string& what) {
    using Limits = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
        const unsigned long long u = v.get<unsigned long long>();
        if (u <= static_cast<unsigned long long>(Limits::max())) return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        const long long x = v.get<long long>();
        const bool fits = x >= 0 ? static_cast<unsigned long long>(x) <= static_cast<unsigned long long>(Limits::max())
                                 : Limits::is_signed && x >= static_cast<long long>(Limits::min());
        if (fits) return static_cast<T>(x);
    } else {
        throw RunnerError(what + " must be an integer", false);
    }
    throw RunnerError(what + " is out of range", false);
}

template <typename T>
std::vector<T> integers(const nlohmann::json& v, const std::string& what) {
    if (!v.is_array()) throw RunnerError(what + " must be a list of integers", false);
    std::vector<T> out;
    for (const auto& x : v) out.push_back(integer<T>(x, what));
    return out;
}

// v converted to the integer type T, refused when it is not a whole number within T's range.
template <typename T>
T wholeNumber(double v, const std::string& dtype) {
    if (!(v == std::floor(v)) || v < static_cast<double>(std::numeric_limits<T>::min()) || v >= std::ldexp(1.0, std::numeric_limits<T>::digits))
        throw RunnerError("scalar value " + std::to_string(v) + " is not a " + dtype, false);
    return static_cast<T>(v);
}

// The scalar's bytes in the argument's type, as the kernel signature declares it.
void encodeScalar(const std::string& dtype, double v, unsigned char* out) {
    auto put = [&](auto x) { std::memcpy(out, &x, sizeof x); };
    if (dtype == "f32") put(static_cast<float>(v));
    else if (dtype == "f64") put(v);
    else if (dtype == "i32") put(wholeNumber<int>(v, dtype));
    else if (dtype == "u32") put(wholeNumber<unsigned>(v, dtype));
    else if (dtype == "i64") put(wholeNumber<long long>(v, dtype));
    else if (dtype == "u64") put(wholeNumber<unsigned long long>(v, dtype));
    else throw RunnerError("scalar arguments of type '" + dtype + "' are not supported (f32, f64, i32, u32, i64, u64)", false);
}

}  // namespace

std::vector<Arg> parseArgs(const nlohmann::json& list) {
    std::vector<Arg> args;
    for (const auto& a : list) {
        Arg arg;
        arg.name = a.at("name");
        arg.role = a.at("role");
        if (arg.role == "size") {
            const int v = integer<int>(a.at("value"), "size '" + arg.name + "'");  // sizes are C int
            std::memcpy(arg.scalar, &v, sizeof v);
        } else if (arg.role == "scalar") {
            encodeScalar(a.at("dtype"), a.at("value").get<double>(), arg.scalar);
        } else if (arg.role == "pass") {
            // Filled per launch.
        } else if (arg.role == "tensor_map") {
            arg.of = a.at("of");
            arg.dtype = a.at("dtype");
            arg.dims = integers<unsigned long long>(a.at("dims"), "tensor map dims");
            arg.box = integers<unsigned>(a.at("box"), "tensor map box");
            arg.swizzle = a.value("swizzle", "none");
            arg.mode = a.value("mode", "tile");
            if (a.contains("strides")) arg.strides = integers<unsigned>(a.at("strides"), "tensor map strides");
            if (!arg.strides.empty() && arg.strides.size() != arg.dims.size())
                throw RunnerError("tensor map '" + arg.name + "' needs one traversal stride per dimension", false);
            if (arg.mode == "im2col") {
                arg.lower = integers<int>(a.at("lower"), "im2col lower corner");
                arg.upper = integers<int>(a.at("upper"), "im2col upper corner");
                if (arg.dims.size() < 3 || arg.dims.size() > 5 || arg.box.size() != 2 || arg.lower.size() != arg.dims.size() - 2 ||
                    arg.upper.size() != arg.dims.size() - 2)
                    throw RunnerError("im2col tensor map '" + arg.name +
                                          "' needs 3 to 5 dims, a box of channels and pixels, and one lower and upper corner per spatial dimension",
                                      false);
            } else if (arg.mode != "tile") {
                throw RunnerError("tensor map '" + arg.name + "': mode must be tile or im2col, not '" + arg.mode + "'", false);
            } else if (arg.dims.empty() || arg.dims.size() > 5 || arg.box.size() != arg.dims.size()) {
                throw RunnerError("tensor map '" + arg.name + "' needs 1 to 5 dims and one box size per dimension", false);
            }
        } else {
            arg.elemBytes = integer<size_t>(a.at("elem_bytes"), "elem_bytes of '" + arg.name + "'");
            const size_t count = integer<size_t>(a.at("count"), "count of '" + arg.name + "'");
            if (arg.elemBytes > 0 && count > std::numeric_limits<size_t>::max() / arg.elemBytes)
                throw RunnerError("'" + arg.name + "' of " + std::to_string(count) + " elements overflows a byte count", false);
            arg.bytes = std::max<size_t>(1, count * arg.elemBytes);
            arg.file = a.value("file", "");
            arg.zeroEachRun = a.value("zero", "once") == "each";
        }
        args.push_back(std::move(arg));
    }
    return args;
}

std::vector<Launch> parseLaunches(const nlohmann::json& req) {
    // Older requests name one kernel at the top level.
    nlohmann::json list = req.contains("launches")
                              ? req.at("launches")
                              : nlohmann::json::array({{{"kernel", req.at("kernel")}, {"grid", req.at("grid")}, {"block", req.at("block")},
                                                        {"dynamic_smem", req.value("dynamic_smem", 0)}}});
    std::vector<Launch> launches;
    for (const auto& l : list) {
        Launch launch;
        launch.kernel = l.at("kernel");
        const auto grid = integers<unsigned>(l.at("grid"), "grid");
        const auto block = integers<unsigned>(l.at("block"), "block");
        if (grid.size() != 3 || block.size() != 3) throw RunnerError("grid and block need 3 dimensions", false);
        std::copy(grid.begin(), grid.end(), launch.grid);
        std::copy(block.begin(), block.end(), launch.block);
        launch.dynamicSmem = l.contains("dynamic_smem") ? integer<unsigned>(l.at("dynamic_smem"), "dynamic_smem") : 0u;
        launch.repeat = l.contains("repeat") ? integer<long long>(l.at("repeat"), "repeat") : 1LL;
        launch.primary = l.value("primary", false);
        launch.persistent = l.value("persistent", false);
        launch.prepare = l.value("prepare", false);
        if (launch.prepare && launch.primary) throw RunnerError("launch '" + launch.kernel + "' cannot be both prepare and primary", false);
        if (l.contains("cluster")) {
            const auto cluster = integers<unsigned>(l.at("cluster"), "cluster");
            if (cluster.size() != 3) throw RunnerError("cluster needs 3 dimensions", false);
            std::copy(cluster.begin(), cluster.end(), launch.cluster);
            for (int i = 0; i < 3; ++i)
                if (launch.cluster[i] < 1 || launch.grid[i] % launch.cluster[i] != 0)
                    throw RunnerError("launch '" + launch.kernel + "': grid dimension " + std::to_string(launch.grid[i]) +
                                          " is not a multiple of the cluster's " + std::to_string(launch.cluster[i]),
                                      false);
        }
        launches.push_back(std::move(launch));
    }
    if (std::all_of(launches.begin(), launches.end(), [](const Launch& l) { return l.prepare; }))
        throw RunnerError("the request names no kernel to launch", false);
    return launches;
}

}  // namespace kx::runner
