// 3-D stencil: every output against float64, a slab of grid rows at a time (the default 512^3
// grid is 128 Mi points; a slab keeps the reference's own arrays small) with the rows of a slab
// split over threads.
#include "run/references/stencil.hpp"
#include "run/references/references.hpp"

#include "run/reference.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>
#include <thread>

namespace kx::engine {

namespace {

// Points per slab checked at once, and the fewest points worth a thread of their own.
constexpr long long kSlabPoints = 1 << 22;
constexpr long long kPointsPerThread = 1 << 16;

int radiusOf(int order) {
    if (order != 2 && order != 8) throw InputError("the stencil's order is 2 or 8, not " + std::to_string(order));
    return order / 2;
}

// Rows [r0, r1) on this thread; out and scale are indexed from row `base`. The radius is a
// template argument and each row's interior is one branch-free run of x, so the inner loop
// unrolls and vectorises.
template <int R>
void rows(const double (&coef)[5], long long nx, long long ny, long long nz, const double* in, long long base, long long r0,
          long long r1, double* out, double* scale) {
    const long long plane = nx * ny;
    for (long long row = r0; row < r1; ++row) {
        const long long z = row / ny, y = row % ny;
        const double* p = in + row * nx;
        double* o = out + (row - base) * nx;
        double* m = scale + (row - base) * nx;
        const bool rowInterior = stencilInterior(R, nx, ny, nz, R, y, z);
        // Interior x: [R, nx - R) when the row is interior at all.
        const long long xBegin = rowInterior ? std::min<long long>(R, nx) : nx;
        const long long xEnd = rowInterior ? std::max(xBegin, nx - R) : nx;
        auto copy = [&](long long x) {
            o[x] = p[x];
            m[x] = std::fabs(p[x]);
        };
        for (long long x = 0; x < xBegin; ++x) copy(x);
        for (long long x = xEnd; x < nx; ++x) copy(x);
        for (long long x = xBegin; x < xEnd; ++x) {
            double sum = coef[0] * p[x], mag = std::fabs(coef[0] * p[x]);
            for (int k = 1; k <= R; ++k) {
                const double terms[6] = {p[x - k], p[x + k], p[x - k * nx], p[x + k * nx], p[x - k * plane], p[x + k * plane]};
                for (const double t : terms) {
                    sum += coef[k] * t;
                    mag += std::fabs(coef[k] * t);
                }
            }
            o[x] = sum;
            m[x] = mag;
        }
    }
}

void rowsOfOrder(int order, long long nx, long long ny, long long nz, const double* in, long long base, long long r0, long long r1,
                 double* out, double* scale) {
    double coef[5] = {};
    for (int k = 0; k <= order / 2; ++k) coef[k] = stencilCoefficient(order, k);
    if (order == 2)
        rows<1>(coef, nx, ny, nz, in, base, r0, r1, out, scale);
    else
        rows<4>(coef, nx, ny, nz, in, base, r0, r1, out, scale);
}

}  // namespace

double stencilCoefficient(int order, int k) {
    const int radius = radiusOf(order);
    if (k < 0 || k > radius) throw InputError("stencil coefficient " + std::to_string(k) + " of order " + std::to_string(order));
    // The kernel's constants, as fp32 expressions evaluated the same way (one correctly rounded
    // division each).
    if (order == 2) return k == 0 ? -6.0f : 1.0f;
    constexpr float kOrder8[5] = {-205.0f / 24.0f, 8.0f / 5.0f, -1.0f / 5.0f, 8.0f / 315.0f, -1.0f / 560.0f};
    return kOrder8[k];
}

bool stencilInterior(int radius, long long nx, long long ny, long long nz, long long x, long long y, long long z) {
    return x >= radius && x < nx - radius && y >= radius && y < ny - radius && z >= radius && z < nz - radius;
}

void stencilReferenceRows(int order, long long nx, long long ny, long long nz, const double* in, long long rowBegin,
                          long long rowEnd, double* out, double* scale) {
    radiusOf(order);
    if (rowEnd <= rowBegin || nx <= 0) return;
    const long long work = (rowEnd - rowBegin) * nx;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const long long threads = std::min<long long>({cores, rowEnd - rowBegin, std::max(1LL, work / kPointsPerThread)});
    std::vector<std::thread> pool;
    long long done = rowBegin;  // rows [rowBegin, done) are handed to threads
    try {
        for (long long t = 0; t + 1 < threads; ++t) {
            const long long r1 = rowBegin + (rowEnd - rowBegin) * (t + 1) / threads;
            pool.emplace_back(rowsOfOrder, order, nx, ny, nz, in, rowBegin, done, r1, out, scale);
            done = r1;
        }
    } catch (const std::system_error&) {
        // No more threads to be had (a sandbox, a loaded machine): this one does the rest.
    }
    rowsOfOrder(order, nx, ny, nz, in, rowBegin, done, rowEnd, out, scale);
    for (std::thread& t : pool) t.join();
}

std::vector<double> stencilReference(int order, long long nx, long long ny, long long nz, const std::vector<double>& in) {
    std::vector<double> out(static_cast<std::size_t>(nx * ny * nz)), scale(out.size());
    stencilReferenceRows(order, nx, ny, nz, in.data(), 0, ny * nz, out.data(), scale.data());
    return out;
}

void checkStencil(const CheckContext& ctx, CorrectnessReport& r) {
    const int order = std::stoi(ctx.choice("order"));
    const int radius = radiusOf(order);
    const int taps = 6 * radius + 1;
    const long long nx = ctx.size("nx"), ny = ctx.size("ny"), nz = ctx.size("nz");
    const HostArray& in = ctx.input("in");
    const HostArray& out = ctx.output("out");
    const auto points = static_cast<std::size_t>(nx * ny * nz);
    if (in.size() != points || out.size() != points)
        throw InputError("a " + std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) + " grid has " +
                         std::to_string(points) + " points; the run has " + std::to_string(in.size()) + " inputs and " +
                         std::to_string(out.size()) + " outputs");

    r.total = static_cast<long long>(points);
    // Each interior output is taps fp32 products summed in fp32.
    const double tol = tolerance("f32", taps);
    ElementChecker checker(r, tol);
    const long long totalRows = ny * nz;
    const long long slabRows = std::max(1LL, kSlabPoints / std::max(1LL, nx));
    std::vector<double> ref(static_cast<std::size_t>(std::min(totalRows, slabRows) * nx)), scale(ref.size());
    const std::string unused;
    long long interior = 0;
    for (long long row0 = 0; row0 < totalRows; row0 += slabRows) {
        const long long row1 = std::min(totalRows, row0 + slabRows);
        stencilReferenceRows(order, nx, ny, nz, in.values.data(), row0, row1, ref.data(), scale.data());
        for (long long row = row0; row < row1; ++row) {
            const long long z = row / ny, y = row % ny;
            for (long long x = 0; x < nx; ++x) {
                const long long i = row * nx + x;
                const auto o = static_cast<std::size_t>((row - row0) * nx + x);
                const double got = out.values[static_cast<std::size_t>(i)];
                if (stencilInterior(radius, nx, ny, nz, x, y, z)) {
                    ++interior;
                    // Names are only read for a failure: format them only then (this test is at
                    // least as strict as the checker's, so no failure goes unnamed).
                    const bool ok = std::fabs(got - ref[o]) <= tol * scale[o];
                    checker.check(i, got, ref[o], scale[o], ok ? unused : elementName("out", i));
                } else {
                    checker.checkExact(i, got, ref[o], got == ref[o] ? unused : elementName("out", i));
                }
            }
        }
    }
    r.method = "every one of the " + std::to_string(r.total) + " outputs: the " + std::to_string(interior) +
               " interior points against the float64 " + std::to_string(taps) +
               "-point stencil with the kernel's fp32 coefficients, the others exactly against their input (a copy)";
    checker.finish();
}

}  // namespace kx::engine
