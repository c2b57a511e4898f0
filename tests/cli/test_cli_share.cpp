// Your own kernels, compiler flags and share strings on the command line: kx --templates DIR,
// --flag, kx share and kx open, end to end, each machine's user folder a scratch folder.
#include "kx_process.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

using namespace kx::test;

namespace {

// A user template folder as the app makes one from a pasted kernel (a manifest with a 1-D
// launch and no <args>; a kernel needing more than 32 registers), written here so the CLI is
// tested on its own.
fs::path writeUserTemplate(const fs::path& root, const std::string& id) {
    const fs::path dir = root / id;
    fs::create_directories(dir);
    std::ofstream(dir / "manifest.xml") << R"xml(<template id=")xml" << id << R"xml(" title="Heavy" category="Your kernels">
  <summary>Many live registers.</summary>
  <source file="kernel.cu"/>
  <name-pattern>)xml" << id << R"xml(_b{BLOCK}</name-pattern>
  <parameters>
    <param name="BLOCK" type="int" values="128,256" default="256" label="Block" help="threads per block"/>
  </parameters>
  <problem><size name="n" default="65536" help="threads"/></problem>
  <launch grid-x="ceil_div(n,BLOCK)" block-x="BLOCK"/>
</template>
)xml";
    // The README's pasted kernel, as the app stores it: its name is ${KERNEL_NAME}, with C linkage.
    std::string kernel = slurp(fs::path(KX_TEST_SOURCE_DIR) / "docs/screenshots/user_kernel.cu");
    kernel.replace(kernel.find("__global__ void heavy("), 22, "extern \"C\" __global__ void ${KERNEL_NAME}(");
    std::ofstream(dir / "kernel.cu") << kernel;
    return dir;
}

struct Machine {
    fs::path home;
    std::string env;
    explicit Machine(const std::string& name) : home(scratchDir() / name) {
        fs::remove_all(home);
        fs::create_directories(home);
        env = "XDG_DATA_HOME='" + home.string() + "'";
    }
    fs::path userTemplates() const { return home / "kernel-explorer" / "templates"; }
};

}  // namespace

TEST_CASE("kx --templates DIR loads a template folder, or a folder of them, beside the shipped ones", "[cli][user]") {
    const Machine m("templates_dir");
    const fs::path extra = scratchDir() / "extra_templates";
    fs::remove_all(extra);
    const fs::path heavy = writeUserTemplate(extra, "heavy");

    const Outcome listed = runKx("--templates " + extra.string() + " templates", m.env);
    REQUIRE(listed.exitCode == 0);
    CHECK_THAT(listed.out, Catch::Contains("heavy") && Catch::Contains("(user: " + heavy.string() + ")") && Catch::Contains("gemm"));
    const Outcome one = runKx("--templates " + heavy.string() + " templates --json", m.env);
    CHECK_THAT(one.out, Catch::Contains("\"origin\": \"user\""));

    // A broken folder beside it: a warning with file and line, and the good one still works.
    fs::create_directories(extra / "broken");
    std::ofstream(extra / "broken" / "manifest.xml") << "<template id=\"broken\">\n  <source file=\"k.cu\"/>\n</template>\n";
    const Outcome compiled = runKx("--templates " + extra.string() + " compile heavy --arch sm_90 --emit resources", m.env);
    REQUIRE(compiled.exitCode == 0);
    CHECK_THAT(compiled.out, Catch::Contains("heavy_b256 for sm_90"));
    CHECK_THAT(compiled.err, Catch::Contains("kx: warning: " + (extra / "broken" / "manifest.xml").string() + ":1:"));

    const Outcome missing = runKx("--templates /no/such/folder templates", m.env);
    CHECK(missing.exitCode == 2);
    CHECK(missing.err == "kx: --templates /no/such/folder: no such folder\n");

    // Templates in the user's data folder are loaded without --templates.
    writeUserTemplate(m.userTemplates(), "mine");
    CHECK_THAT(runKx("templates", m.env).out, Catch::Contains("mine"));
}

TEST_CASE("kx: --templates DIR also goes after the command, repeatable, with the same meaning", "[cli][user]") {
    const Machine m("templates_after");
    const fs::path extra = scratchDir() / "templates_after", more = scratchDir() / "templates_more";
    fs::remove_all(extra);
    fs::remove_all(more);
    writeUserTemplate(extra, "heavy");
    writeUserTemplate(more, "other");

    const Outcome compiled = runKx("compile heavy --arch sm_90 --templates " + extra.string() + " --emit resources", m.env);
    INFO(compiled.err);
    REQUIRE(compiled.exitCode == 0);
    CHECK_THAT(compiled.out, Catch::Contains("heavy_b256 for sm_90"));
    // Before and after the command, and twice after it: every folder is loaded.
    const Outcome both = runKx("--templates " + extra.string() + " templates --templates " + more.string(), m.env);
    REQUIRE(both.exitCode == 0);
    CHECK_THAT(both.out, Catch::Contains("heavy") && Catch::Contains("other"));
    const Outcome twice = runKx("templates --templates " + extra.string() + " --json --templates " + more.string(), m.env);
    REQUIRE(twice.exitCode == 0);
    CHECK_THAT(twice.out, Catch::Contains("\"heavy\"") && Catch::Contains("\"other\""));
    const Outcome generated = runKx("generate heavy --set BLOCK=128 --templates " + extra.string() + " --arch sm_90", m.env);
    CHECK_THAT(generated.out, Catch::Contains("void heavy_b128("));

    // Every command and subcommand takes it: a folder that is not there is the same one line.
    const std::string bad = " --templates /no/such/folder";
    for (const std::string command :
         {"templates", "arches", "generate heavy --arch sm_90", "compile heavy --arch sm_90 --emit ptx", "mix heavy --arch sm_90",
          "occupancy --arch sm_90 --regs 32 --block 128", "run heavy --arch sm_90", "session new s.kxs", "session list s.kxs",
          "session show s.kxs", "session note s.kxs v t", "session export s.kxs", "session merge a.kxs b.kxs", "sweep heavy --arch sm_90",
          "calibrate", "tutorial list", "tutorial show vector_add", "tutorial check vector_add --session s.kxs", "tiles heavy --arch sm_90",
          "roofline heavy --arch sm_90", "share heavy --arch sm_90", "open kx1:x"}) {
        INFO(command);
        const Outcome o = runKx(command + bad, m.env);
        CHECK(o.exitCode == 2);
        CHECK(o.err == "kx: --templates /no/such/folder: no such folder\n");
    }
    // Between a subcommand group and its subcommand too.
    CHECK(runKx("session" + bad + " list s.kxs", m.env).err == "kx: --templates /no/such/folder: no such folder\n");
}

TEST_CASE("kx --flag sets compiler flags: the name, the resources, and refusals", "[cli][flags]") {
    const Machine m("flags");
    writeUserTemplate(m.userTemplates(), "heavy");
    const Outcome plain = runKx("compile heavy --arch sm_90 --emit resources --json", m.env);
    const Outcome capped = runKx("compile heavy --arch sm_90 --flag maxrregcount=32 --emit resources --json", m.env);
    REQUIRE(plain.exitCode == 0);
    REQUIRE(capped.exitCode == 0);
    const auto registers = [](const std::string& json) { return std::stoi(json.substr(json.find("\"registers\": ") + 13)); };
    CHECK(registers(plain.out) > 32);
    CHECK(registers(capped.out) <= 32);
    CHECK_THAT(capped.out, Catch::Contains("\"variant\": \"heavy_b256_r32\"") && Catch::Contains("\"register_cap_applied\": true"));

    // The shipped kernels carry __launch_bounds__, which take precedence: ptxas may keep the
    // kernel over the cap, or hold it to the cap without saying so. kx tells which.
    const Outcome bounded = runKx("compile stencil --arch sm_90 --set order=8,strategy=smem_async --flag maxrregcount=96 --emit resources");
    REQUIRE(bounded.exitCode == 0);
    CHECK_THAT(bounded.out, Catch::Contains("register cap     96 ignored by ptxas: the kernel's __launch_bounds__ take precedence ("));
    const Outcome kept = runKx("compile stencil --arch sm_90 --preset twenty_five_point --emit resources");
    REQUIRE(kept.exitCode == 0);
    CHECK_THAT(kept.out, Catch::Contains("registers        128 per thread") &&
                             Catch::Contains("register cap     128 kept: the kernel, which has __launch_bounds__, uses 128"));

    const Outcome generated = runKx("generate heavy --arch sm_90 --flag fast_math --flag ptxas_opt=1", m.env);
    CHECK_THAT(generated.out, Catch::Contains("void heavy_b256_fm_O1("));
    const Outcome bad = runKx("compile heavy --arch sm_90 --flag maxrregcount=8 --emit ptx", m.env);
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.err, Catch::Contains("maxrregcount must be 0 (no cap) or 16 to 255"));
    const Outcome amd = runKx("compile reduce --arch gfx942 --flag fast_math --emit isa");
    CHECK(amd.exitCode == 2);
    CHECK_THAT(amd.err, Catch::Contains("gfx942 compiles with clang"));
    // Running needs the kernel's arguments described: refused before any GPU is looked for.
    const Outcome run = runKx("run heavy --arch sm_90", m.env);
    CHECK(run.exitCode == 2);
    CHECK_THAT(run.err, Catch::Contains("describes no kernel arguments (<args>)"));
}

TEST_CASE("kx share and kx open carry a variant and its user template to another machine", "[cli][share]") {
    const Machine alice("alice");
    const Machine bob("bob");
    writeUserTemplate(alice.userTemplates(), "heavy");
    const Outcome shared = runKx("share heavy --arch sm_90 --set BLOCK=128 --flag maxrregcount=32 --size n=4096", alice.env);
    REQUIRE(shared.exitCode == 0);
    const std::string text = shared.out.substr(0, shared.out.find('\n'));
    CHECK(text.rfind("kx1:", 0) == 0);

    const Outcome opened = runKx("open " + text, bob.env);
    INFO(opened.err);
    REQUIRE(opened.exitCode == 0);
    CHECK_THAT(opened.out, Catch::StartsWith("heavy_b128_r32 for sm_90\n"));
    CHECK_THAT(opened.out, Catch::Contains("(user template, installed in " + (bob.userTemplates() / "heavy").string() + ")"));
    CHECK_THAT(opened.out, Catch::Contains("flags     maxrregcount=32") && Catch::Contains("sizes     n=4096"));
    CHECK_THAT(opened.out, Catch::Contains("compile   kx compile heavy --arch sm_90 --set BLOCK=128 --flag maxrregcount=32 --emit resources"));
    CHECK(fs::exists(bob.userTemplates() / "heavy" / "kernel.cu"));

    // The printed command reproduces it on Bob's machine, and --emit does it in one go.
    const Outcome again = runKx("compile heavy --arch sm_90 --set BLOCK=128 --flag maxrregcount=32 --emit resources", bob.env);
    CHECK_THAT(again.out, Catch::Contains("heavy_b128_r32 for sm_90") && Catch::Contains("register cap     32 applied"));
    const Outcome emitted = runKx("open " + text + " --emit ptx", bob.env);
    REQUIRE(emitted.exitCode == 0);
    CHECK_THAT(emitted.out, Catch::Contains(".entry heavy_b128_r32("));
    CHECK_THAT(emitted.err, Catch::Contains("the same one as in"));  // opened twice: nothing new written

    const Outcome json = runKx("open " + text + " --json", bob.env);
    CHECK_THAT(json.out, Catch::Contains("\"variant\": \"heavy_b128_r32\"") && Catch::Contains("\"installed\": false"));

    // A shipped variant's string is short and carries no files.
    const Outcome gemm = runKx("share gemm --arch sm_90 --set BM=64");
    REQUIRE(gemm.exitCode == 0);
    CHECK(gemm.out.size() < 250);  // every parameter value, so a later version with other defaults opens the same config
    CHECK_THAT(runKx("open " + gemm.out.substr(0, gemm.out.find('\n')), bob.env).out, Catch::StartsWith("gemm_f16_rcr_64x"));
}

TEST_CASE("kx open refuses a malformed share string with one line and exit 2", "[cli][share]") {
    const Machine m("refuse");
    const Outcome shared = runKx("share gemm --arch sm_90");
    const std::string good = shared.out.substr(0, shared.out.find('\n'));
    for (const std::string& bad : {std::string("hello"), good.substr(0, good.size() / 2), "kx9:" + good.substr(4), good.substr(0, 10) + "!" + good.substr(11)}) {
        const Outcome o = runKx("open '" + bad + "'", m.env);
        INFO(bad);
        CHECK(o.exitCode == 2);
        CHECK_THAT(o.err, Catch::StartsWith("kx: share string: "));
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK(o.out.empty());
    }
    CHECK_FALSE(fs::exists(m.home / "kernel-explorer" / "templates" / "gemm"));
}
