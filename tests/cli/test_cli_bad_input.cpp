// Bad input and failed writes, as a user meets them: every one ends with a one-line reason and a
// non-zero exit code, never a hang, a crash, "internal error" or a false "wrote".
#include "kx_process.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

const std::string kRepo = KX_TEST_SOURCE_DIR;

// A data folder with the repository's assets, the reduce template, and a copy of it ("broken")
// whose manifest has `from` replaced by `to`.
fs::path dataDirWith(const std::string& name, const std::string& from, const std::string& to) {
    const fs::path root = scratchDir() / ("data-" + name);
    fs::remove_all(root);
    fs::create_directories(root / "templates");
    fs::create_directory_symlink(kRepo + "/assets", root / "assets");
    fs::copy(kRepo + "/templates/reduce", root / "templates/reduce", fs::copy_options::recursive);
    fs::copy(kRepo + "/templates/reduce", root / "templates/broken", fs::copy_options::recursive);
    std::string text = slurp(root / "templates/broken/manifest.xml");
    text.replace(text.find("id=\"reduce\""), 11, "id=\"broken\"");
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(root / "templates/broken/manifest.xml", std::ios::binary) << text;
    return root;
}

std::string sourceElement() {
    const std::string text = slurp(kRepo + "/templates/reduce/manifest.xml");
    const auto start = text.find("<source file=\"");
    return text.substr(start, text.find("/>", start) + 2 - start);
}

}  // namespace

TEST_CASE("kx: a manifest naming a device, a folder or a file outside is refused and the other templates work",
          "[cli][reliability]") {
    for (const std::string source : {"/dev/zero", ".", "../../../../etc/passwd"}) {
        INFO(source);
        const fs::path data = dataDirWith("source", sourceElement(), "<source file=\"" + source + "\"/>");
        const auto start = std::chrono::steady_clock::now();
        const Outcome list = runKx("--data-dir " + data.string() + " templates");
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
        CHECK(list.exitCode == 0);
        CHECK_THAT(list.out, Catch::Contains("reduce") && !Catch::Contains("broken"));
        CHECK_THAT(list.err, Catch::Contains("broken/manifest.xml:") && !Catch::Contains("internal error"));
        const Outcome gen = runKx("--data-dir " + data.string() + " generate broken --arch sm_90");
        CHECK(gen.exitCode == 2);
        CHECK_THAT(gen.out, !Catch::Contains("root:"));
        CHECK(runKx("--data-dir " + data.string() + " generate reduce --arch sm_90").exitCode == 0);
    }
}

TEST_CASE("kx generate --output-dir never writes outside the folder", "[cli][reliability]") {
    const std::string text = slurp(kRepo + "/templates/reduce/manifest.xml");
    const auto start = text.find("<name-pattern>");
    const std::string pattern = text.substr(start, text.find("</name-pattern>") + 15 - start);
    const fs::path data = dataDirWith("pattern", pattern, "<name-pattern>../../escaped_{BLOCK}</name-pattern>");
    const fs::path out = scratchDir() / "gen-out" / "inner";
    fs::remove_all(scratchDir() / "gen-out");
    const Outcome o = runKx("--data-dir " + data.string() + " generate broken --arch sm_90 --output-dir " + out.string());
    CHECK(o.exitCode == 2);
    CHECK_THAT(o.err, Catch::Contains("<name-pattern>"));
    for (const auto& entry : fs::recursive_directory_iterator(scratchDir()))
        CHECK(entry.path().filename().string().rfind("escaped_", 0) != 0);
}

TEST_CASE("kx: writes that fail are reported, not announced as written", "[cli][reliability]") {
    const Outcome gen = runKx("generate reduce --arch sm_90 -o /dev/full");
    CHECK(gen.exitCode == 1);
    CHECK_THAT(gen.err, Catch::Contains("cannot write /dev/full") && !Catch::Contains("wrote"));
    const Outcome genStdout = runKx("generate reduce --arch sm_90 > /dev/full");
    CHECK(genStdout.exitCode == 1);
    CHECK_THAT(genStdout.err, Catch::Contains("cannot write to standard output"));
    // A copy: opening the shipped file writable would migrate it in the repository.
    const std::string demo = (scratchDir() / "export-demo.kxs").string();
    fs::copy_file(kRepo + "/sessions/demo.kxs", demo, fs::copy_options::overwrite_existing);
    const Outcome exp = runKx("session export " + demo + " -o /dev/full");
    CHECK(exp.exitCode == 1);
    CHECK_THAT(exp.err, Catch::Contains("cannot write /dev/full"));
    CHECK(runKx("session export " + demo + " --format csv > /dev/full").exitCode == 1);
    CHECK(runKx("occupancy --arch sm_90 --regs 32 --block 256 > /dev/full").exitCode == 1);
    const Outcome mix = runKx("mix reduce --arch sm_90 -o /dev/full");
    CHECK(mix.exitCode == 1);
    CHECK_THAT(mix.err, Catch::Contains("cannot write /dev/full") && !Catch::Contains("wrote"));
    CHECK(runKx("mix reduce --arch sm_90 > /dev/full").exitCode == 1);
    const Outcome csv = runKx("sweep map --arch sm_90 --vary VEC=1,2 --compile-only -j 2 --csv /dev/full");
    CHECK(csv.exitCode == 1);
    CHECK_THAT(csv.err, Catch::Contains("cannot write /dev/full"));
    CHECK(runKx("sweep map --arch sm_90 --vary VEC=1,2 --compile-only -j 2 --csv - > /dev/full").exitCode == 1);
    // A Slurm job whose script cannot be written (a link to /dev/full) is not announced.
    const fs::path slurm = scratchDir() / "slurm-full";
    fs::remove_all(slurm);
    fs::create_directories(slurm);
    fs::create_symlink("/dev/full", slurm / "sweep.sbatch");
    const Outcome job = runKx("sweep map --arch sm_90 --vary VEC=1,2 --emit-slurm " + slurm.string());
    CHECK(job.exitCode == 1);
    CHECK_THAT(job.err, Catch::Contains("cannot write " + (slurm / "sweep.sbatch").string()));
    CHECK_THAT(job.out, !Catch::Contains("wrote") && !Catch::Contains("submit"));
    // Devices that take writes still work, and stay devices.
    CHECK(runKx("generate reduce --arch sm_90 -o /dev/null").exitCode == 0);
    CHECK(fs::is_character_file("/dev/null"));
    CHECK(fs::is_character_file("/dev/full"));
}

TEST_CASE("kx compile for an AMD arch reports writes that fail", "[cli][reliability][amd][hip]") {
    const Outcome isa = runKx("compile reduce --lang hip --arch gfx942 --emit isa -o /dev/full");
    CHECK(isa.exitCode == 1);
    CHECK_THAT(isa.err, Catch::Contains("cannot write /dev/full"));
    CHECK(runKx("compile reduce --lang hip --arch gfx942 --emit hsaco -o /dev/full").exitCode == 1);
    CHECK(runKx("compile reduce --lang hip --arch gfx942 --emit resources > /dev/full").exitCode == 1);
}

TEST_CASE("kx occupancy refuses values that do not fit, binary input and wrong flags by name", "[cli][reliability]") {
    const fs::path csv = scratchDir() / "wrap.csv";
    std::ofstream(csv) << "arch,regs,static_smem,block,dyn_smem,carveout\nsm_90,32,0,2147483648,0,-1\n";
    const Outcome wrap = runKx("occupancy --csv " + csv.string());
    CHECK(wrap.exitCode == 2);
    CHECK_THAT(wrap.err, Catch::Contains("row 2, column block: '2147483648' is out of range"));
    CHECK(wrap.out.empty());

    const auto start = std::chrono::steady_clock::now();
    const Outcome zero = runKx("occupancy --csv /dev/zero");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    CHECK(zero.exitCode == 2);
    CHECK_THAT(zero.err, Catch::Contains("NUL byte"));
    const Outcome zeroStdin = runKx("occupancy --csv - < /dev/zero");
    CHECK(zeroStdin.exitCode == 2);

    const Outcome regs = runKx("occupancy --arch sm_90 --regs -1 --block 128");
    CHECK(regs.exitCode == 2);
    CHECK_THAT(regs.err, Catch::Contains("--regs") && !Catch::Contains("needs --arch"));
    const Outcome block = runKx("occupancy --arch sm_90 --regs 32 --block 0");
    CHECK(block.exitCode == 2);
    CHECK_THAT(block.err, Catch::Contains("--block") && !Catch::Contains("needs --arch"));
    const Outcome missing = runKx("occupancy --arch sm_90 --regs 32");
    CHECK(missing.exitCode == 2);
    CHECK_THAT(missing.err, Catch::EndsWith("missing: --block\n"));
}

TEST_CASE("kx session refuses damaged files in one line and never writes into them", "[cli][reliability]") {
    const std::string demo = slurp(kRepo + "/sessions/demo.kxs");
    const fs::path shortFile = scratchDir() / "short.kxs";
    std::ofstream(shortFile, std::ios::binary) << demo.substr(0, demo.size() - 1);
    for (const std::string command : {"list", "show", "export"}) {
        const Outcome o = runKx("session " + command + " " + shortFile.string());
        CHECK(o.exitCode == 2);
        CHECK_THAT(o.err, Catch::Contains("is damaged: truncated"));
    }
    const Outcome note = runKx("session note " + shortFile.string() + " anything text");
    CHECK(note.exitCode == 2);
    CHECK(slurp(shortFile) == demo.substr(0, demo.size() - 1));

    std::string corrupt = demo;
    for (std::size_t i = 0; i < 200; ++i) corrupt[3 * 4096 + i] = 'A';
    const fs::path corruptFile = scratchDir() / "corrupt.kxs";
    std::ofstream(corruptFile, std::ios::binary) << corrupt;
    const Outcome o = runKx("session list " + corruptFile.string());
    CHECK(o.exitCode == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

TEST_CASE("kx run refuses a size beyond the kernel's int before starting anything", "[cli][reliability]") {
    const Outcome o = runKx("run gemm --arch sm_90 --size M=1099511627776");
    CHECK(o.exitCode == 2);
    CHECK_THAT(o.err, Catch::Contains("M=1099511627776 is too large") && Catch::Contains("int"));
}
