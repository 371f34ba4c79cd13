// Specification of the native trace file (simulator/trace/trace_file.h): lossless, deterministic round
// trips, rank-range compression, gzip, and errors that name the file, line and field of bad input.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/trace_file.h"
#include "tests/unit/trace/trace_fixtures.h"

namespace simtrain::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::two_rank_ddp;
using testing::two_stage_pipeline;

// A fresh directory for one test's files, removed with everything in it afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "simtrain-trace-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

Error error_of(auto&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected an Error");
  return Error("unreachable");
}

Error json_error(const json& document) {
  return error_of([&] { trace_from_json(document, "doc.json"); });
}

TEST_CASE("the document states schema, version and world size, and stores ranks as inclusive ranges") {
  const json doc = trace_to_json(two_stage_pipeline());
  CHECK(doc["schema"] == "simtrain-trace");
  CHECK(doc["version"] == 1);
  CHECK(doc["world_size"] == 4);
  CHECK(doc["rank_programs"] == json::parse(R"([{"program": 0, "ranks": [[0, 1]]},
                                                {"program": 1, "ranks": [[2, 3]]}])"));
  CHECK(doc["groups"][0] == json::parse(R"({"name": "pp", "communicators": [[0, 2], [1, 3]]})"));
  CHECK(doc["metadata"]["peak_memory_bytes"] == 40e9);
}

TEST_CASE("16k ranks sharing one program take a single range") {
  Trace trace = two_rank_ddp();
  trace.world_size = 16384;
  trace.rank_program.assign(16384, 0);
  trace.groups[0].communicators = {{}};
  for (int r = 0; r < 16384; ++r) trace.groups[0].communicators[0].push_back(r);
  const json doc = trace_to_json(trace);
  CHECK(doc["rank_programs"] == json::parse(R"([{"program": 0, "ranks": [[0, 16383]]}])"));
  CHECK(trace_from_json(doc, "big") == trace);
}

TEST_CASE("interleaved programs become several ranges per program and read back rank by rank") {
  Trace trace = two_stage_pipeline();
  trace.rank_program = {0, 1, 1, 0};
  trace.groups[0].communicators = {{0, 1}, {3, 2}};  // keep a pp peer for every rank
  trace.groups[1].communicators = {{0, 3}, {1, 2}};  // and dp peers that issue the same collectives
  const json doc = trace_to_json(trace);
  CHECK(doc["rank_programs"] == json::parse(R"([{"program": 0, "ranks": [[0, 0], [3, 3]]},
                                                {"program": 1, "ranks": [[1, 2]]}])"));
  CHECK(trace_from_json(doc, "interleaved").rank_program == std::vector<std::uint32_t>{0, 1, 1, 0});
}

TEST_CASE("ops are compact objects with only the fields of their type") {
  const json doc = trace_to_json(two_stage_pipeline());
  CHECK(doc["programs"][0]["ops"][1] == json::parse(R"({"name": "act.send", "type": "send", "stream": 1,
      "deps": [0], "group": 0, "peer_offset": 1, "bytes": 16777216.0, "tag": 7})"));
  CHECK(doc["programs"][1]["ops"][2] == json::parse(R"({"name": "params.all_gather", "type": "collective",
      "stream": 2, "deps": [1], "op": "all_gather", "dtype": "fp32", "bytes": 123456789.125, "group": 1})"));
  const json& unmeasured = doc["programs"][1]["ops"][1];
  CHECK(unmeasured["kind"] == "gemm");
  CHECK(unmeasured["pass"] == "forward");
  CHECK(unmeasured["shape"] == json::array({1024, 1024, 1024}));
  CHECK_FALSE(unmeasured.contains("duration_s"));  // -1 means "not measured" and is not written
  CHECK(doc["programs"][0]["ops"][0]["duration_s"] == 0.1 + 0.2);
}

TEST_CASE("an unvectorized kernel says so in its op; others leave the field out") {
  Trace trace = two_stage_pipeline();
  trace.programs[1].ops[1].compute.unvectorized = true;
  const json doc = trace_to_json(trace);
  CHECK(doc["programs"][1]["ops"][1]["unvectorized"] == true);
  CHECK_FALSE(doc["programs"][0]["ops"][0].contains("unvectorized"));
  CHECK(trace_from_json(doc, "round trip") == trace);
  json spoiled = doc;
  spoiled["programs"][1]["ops"][1]["unvectorized"] = 1;
  CHECK_THROWS_AS(trace_from_json(spoiled, "spoiled"), Error);
}

TEST_CASE("a flash-attention kernel carries its key tiles per query tile; others leave the field out") {
  Trace trace = two_stage_pipeline();
  trace.programs[1].ops[1].compute.kv_tiles = 16.5;
  const json doc = trace_to_json(trace);
  CHECK(doc["programs"][1]["ops"][1]["kv_tiles"] == 16.5);
  CHECK_FALSE(doc["programs"][0]["ops"][0].contains("kv_tiles"));
  CHECK(trace_from_json(doc, "round trip") == trace);
  for (const json& bad : {json(0.5), json("many"), json(-3)}) {
    json spoiled = doc;
    spoiled["programs"][1]["ops"][1]["kv_tiles"] = bad;
    CHECK_THROWS_AS(trace_from_json(spoiled, "spoiled"), Error);
  }
}

TEST_CASE("an attention kernel names its implementation unless fused; only attention kernels may") {
  for (const AttentionKernel implementation : {AttentionKernel::FlashAttention2, AttentionKernel::Triton}) {
    Trace trace = two_stage_pipeline();
    trace.programs[1].ops[1].compute.kind = ComputeKind::Attention;
    trace.programs[1].ops[1].compute.attention_kernel = implementation;
    const json doc = trace_to_json(trace);
    CHECK(doc["programs"][1]["ops"][1]["attention_kernel"] == std::string(to_string(implementation)));
    CHECK_FALSE(doc["programs"][0]["ops"][0].contains("attention_kernel"));
    CHECK(trace_from_json(doc, "round trip") == trace);
    json spoiled = doc;
    spoiled["programs"][1]["ops"][1]["attention_kernel"] = "flash3";
    CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"),
                         doctest::Contains("unknown name \"flash3\" (expected one of fused, flash2, triton)"),
                         Error);
    spoiled = doc;
    spoiled["programs"][1]["ops"][1]["kind"] = "gemm";
    CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"),
                         doctest::Contains("only an attention kernel has an attention implementation"),
                         Error);
  }
}

TEST_CASE("an FP8 GEMM that splits its accumulator says so in its op; only GEMMs may") {
  Trace trace = two_stage_pipeline();
  trace.programs[1].ops[1].compute.kind = ComputeKind::Gemm;
  trace.programs[1].ops[1].compute.dtype = DType::FP8;
  trace.programs[1].ops[1].compute.split_accumulator = true;
  const json doc = trace_to_json(trace);
  CHECK(doc["programs"][1]["ops"][1]["split_accumulator"] == true);
  CHECK_FALSE(doc["programs"][0]["ops"][0].contains("split_accumulator"));
  CHECK(trace_from_json(doc, "round trip") == trace);
  json spoiled = doc;
  spoiled["programs"][1]["ops"][1]["split_accumulator"] = 1;
  CHECK_THROWS_AS(trace_from_json(spoiled, "spoiled"), Error);
  spoiled = doc;
  spoiled["programs"][1]["ops"][1]["kind"] = "elementwise";
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"),
                       doctest::Contains("only a GEMM accumulates in split precision"), Error);
}

TEST_CASE("a token all-to-all routed once per node carries its routing; others leave the fields out") {
  Trace trace = two_stage_pipeline();
  Op& exchange = trace.programs[1].ops[2];
  exchange.collective.kind = CollectiveKind::AllToAll;
  exchange.collective.node_dedup = {.top_k = 8, .experts = 256, .row_bytes = 14336};
  const json doc = trace_to_json(trace);
  CHECK(doc["programs"][1]["ops"][2]["node_dedup_top_k"] == 8);
  CHECK(doc["programs"][1]["ops"][2]["node_dedup_experts"] == 256);
  CHECK(doc["programs"][1]["ops"][2]["node_dedup_row_bytes"] == 14336);
  CHECK_FALSE(trace_to_json(two_stage_pipeline())["programs"][1]["ops"][2].contains("node_dedup_top_k"));
  CHECK_FALSE(doc["programs"][1]["ops"][2].contains("node_dedup_phases_in_series"));  // DeepEP's overlap
  CHECK(trace_from_json(doc, "round trip") == trace);
  Trace in_series = trace;
  in_series.programs[1].ops[2].collective.node_dedup.phases_in_series = true;
  const json series_doc = trace_to_json(in_series);
  CHECK(series_doc["programs"][1]["ops"][2]["node_dedup_phases_in_series"] == true);
  CHECK(trace_from_json(series_doc, "round trip") == in_series);
  // Fewer experts than picks, a routing without its experts, a row of no bytes and a routed all-gather are
  // errors.
  json spoiled = doc;
  spoiled["programs"][1]["ops"][2]["node_dedup_experts"] = 4;
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_experts"), Error);
  spoiled = doc;
  spoiled["programs"][1]["ops"][2].erase("node_dedup_experts");
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_experts"), Error);
  spoiled = doc;
  spoiled["programs"][1]["ops"][2]["node_dedup_row_bytes"] = 0;
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_row_bytes"), Error);
  spoiled = doc;
  spoiled["programs"][1]["ops"][2]["op"] = "all_gather";
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_top_k"), Error);
  // The phases' order is a boolean, and only of a routed all-to-all.
  spoiled = series_doc;
  spoiled["programs"][1]["ops"][2]["node_dedup_phases_in_series"] = 1;
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_phases_in_series"),
                       Error);
  spoiled = series_doc;
  spoiled["programs"][1]["ops"][2].erase("node_dedup_top_k");
  spoiled["programs"][1]["ops"][2].erase("node_dedup_experts");
  spoiled["programs"][1]["ops"][2].erase("node_dedup_row_bytes");
  CHECK_THROWS_WITH_AS(trace_from_json(spoiled, "spoiled"), doctest::Contains("node_dedup_phases_in_series"),
                       Error);
}

TEST_CASE("a trace survives a JSON round trip field for field") {
  for (const Trace& trace : {two_rank_ddp(), two_stage_pipeline()}) {
    CHECK(trace_from_json(trace_to_json(trace), "round trip") == trace);
  }
}

TEST_CASE("plain and gzip files round trip to an equal trace") {
  const TempDir dir;
  const Trace trace = two_stage_pipeline();
  write_trace_file(trace, dir.file("t.json"));
  write_trace_file(trace, dir.file("t.json.gz"));
  CHECK(read_trace_file(dir.file("t.json")) == trace);
  CHECK(read_trace_file(dir.file("t.json.gz")) == trace);
  CHECK(read_all(dir.file("t.json")).starts_with("{\n"));
  CHECK(read_all(dir.file("t.json.gz")).starts_with("\x1f\x8b"));
  CHECK(fs::directory_iterator(dir.path) != fs::directory_iterator());
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);  // no temporaries
}

TEST_CASE("doubles at the edges of the format survive a file round trip exactly") {
  const TempDir dir;
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[0].compute.flops = 5e-324;  // smallest subnormal
  trace.programs[0].ops[1].compute.flops = 1.7976931348623157e308;
  trace.programs[0].ops[2].compute.bytes = 1.0 / 3.0;
  trace.programs[0].ops[3].collective.bytes = 9007199254740993.0;  // 2^53 + 1 rounds to 2^53: still exact
  write_trace_file(trace, dir.file("edges.json"));
  CHECK(read_trace_file(dir.file("edges.json")) == trace);
}

TEST_CASE("gzip is recognised by its magic bytes, not by the file name") {
  const TempDir dir;
  write_trace_file(two_rank_ddp(), dir.file("t.json.gz"));
  fs::rename(dir.file("t.json.gz"), dir.file("renamed.json"));
  CHECK(read_trace_file(dir.file("renamed.json")) == two_rank_ddp());
}

TEST_CASE("writing the same trace twice gives byte-identical files, plain and compressed") {
  const TempDir dir;
  for (const char* suffix : {".json", ".json.gz"}) {
    write_trace_file(two_stage_pipeline(), dir.file(std::string("a") + suffix));
    write_trace_file(two_stage_pipeline(), dir.file(std::string("b") + suffix));
    CHECK(read_all(dir.file(std::string("a") + suffix)) == read_all(dir.file(std::string("b") + suffix)));
  }
}

TEST_CASE("a compressed trace is one gzip member without name or time stamp, read back whole") {
  const TempDir dir;
  write_trace_file(two_stage_pipeline(), dir.file("t.json.gz"));
  const std::string bytes = read_all(dir.file("t.json.gz"));
  REQUIRE(bytes.size() > 10);
  CHECK(static_cast<unsigned char>(bytes[3]) == 0);   // FLG: no name, no comment, no extra field
  CHECK(bytes.substr(4, 4) == std::string(4, '\0'));  // MTIME: none
  CHECK(read_trace_file(dir.file("t.json.gz")) == two_stage_pipeline());
}

TEST_CASE("a link planted at the output name is neither followed nor replaced") {
  const TempDir dir;
  write_all(dir.file("victim"), "someone else's file");
  fs::create_symlink(dir.file("victim"), dir.file("trace.json.gz"));
  CHECK_THROWS_AS(write_trace_file(two_stage_pipeline(), dir.file("trace.json.gz")), Error);
  CHECK(read_all(dir.file("victim")) == "someone else's file");
  CHECK(fs::is_symlink(dir.file("trace.json.gz")));
}

TEST_CASE("the plain file puts each op on a line of its own") {
  const TempDir dir;
  write_trace_file(two_rank_ddp(), dir.file("t.json"));
  const std::string text = read_all(dir.file("t.json"));
  CHECK(
      text.find("\n        {\"bytes\":2097152.0,\"deps\":[2],\"dtype\":\"bf16\",\"group\":0,"
                "\"name\":\"grad.all_reduce\",\"op\":\"all_reduce\",\"stream\":1,\"type\":\"collective\"}") !=
      std::string::npos);
}

TEST_CASE("a name that JSON cannot encode is an Error, not a crash") {
  const TempDir dir;
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[0].name = "fc\xff";  // not UTF-8
  CHECK(error_of([&] { write_trace_file(trace, dir.file("t.json")); }).file() == dir.file("t.json"));
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("writing an invalid trace fails and leaves no file behind") {
  const TempDir dir;
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[0].stream = 9;
  CHECK_THROWS_AS(write_trace_file(trace, dir.file("bad.json")), Error);
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("a JSON syntax error names the file and the line") {
  const TempDir dir;
  write_all(dir.file("bad.json"),
            "{\n  \"schema\": \"simtrain-trace\",\n  \"version\": 1,\n  \"world_size\": 2,,\n}\n");
  const Error e = error_of([&] { read_trace_file(dir.file("bad.json")); });
  CHECK(e.file() == dir.file("bad.json"));
  CHECK(e.line() == 4);
  CHECK(std::string(e.what()).starts_with(dir.file("bad.json") + ":4: invalid JSON"));
}

TEST_CASE("hostile JSON is an Error naming the file: deep nesting, numbers out of range") {
  // 100,000 levels of '[' crashed nlohmann's recursion (SIGSEGV); 1e999 escaped as an internal error.
  const Error deep = error_of([] { parse_trace("\n" + std::string(100000, '['), "deep.json"); });
  CHECK(deep.file() == "deep.json");
  CHECK(deep.line() == 2);
  CHECK(deep.message() == "invalid JSON: nested deeper than 64 levels");
  std::string text = trace_to_json(two_rank_ddp()).dump(1);
  const std::size_t at = text.find("\"samples_per_iteration\": ") + 25;
  text.replace(at, text.find(',', at) - at, "1e999");
  const Error huge = error_of([&] { parse_trace(text, "huge.json"); });
  CHECK(huge.file() == "huge.json");
  CHECK(huge.line() > 1);
  CHECK(huge.message().find("number overflow") != std::string::npos);
}

TEST_CASE("gzip output is bounded: a small file cannot expand beyond the limit") {
  // 64 KiB of zeros compress to ~100 bytes; with a 60 KiB limit the decoder stops before holding them.
  const TempDir dir;
  Trace trace = two_rank_ddp();
  trace.metadata.model = std::string(65536, 'x');
  write_trace_file(trace, dir.file("t.json.gz"));
  const std::string bytes = read_all(dir.file("t.json.gz"));
  CHECK(gunzip(bytes, "t.json.gz", 1 << 20).size() > 65536);
  const Error e = error_of([&] { gunzip(bytes, "t.json.gz", 60 << 10); });
  CHECK(e.file() == "t.json.gz");
  CHECK(e.message().find("expands beyond") != std::string::npos);
  // Concatenated members (as `cat a.gz b.gz` writes) are one stream, counted together.
  CHECK(gunzip(bytes + bytes, "t.json.gz", 1 << 20).size() == 2 * gunzip(bytes, "t.json.gz", 1 << 20).size());
}

TEST_CASE("a truncated gzip file is reported as truncated") {
  const TempDir dir;
  write_trace_file(two_stage_pipeline(), dir.file("t.json.gz"));
  const std::string bytes = read_all(dir.file("t.json.gz"));
  // Cut inside the header, the compressed data and the CRC/length trailer.
  for (const std::size_t size : {std::size_t{5}, bytes.size() / 2, bytes.size() - 6, bytes.size() - 1}) {
    CAPTURE(size);
    write_all(dir.file("cut.json.gz"), bytes.substr(0, size));
    const Error e = error_of([&] { read_trace_file(dir.file("cut.json.gz")); });
    CHECK(e.file() == dir.file("cut.json.gz"));
    CHECK(e.message().find("truncated") != std::string::npos);
  }
}

TEST_CASE("a missing file is an Error naming it") {
  const TempDir dir;
  CHECK(error_of([&] { read_trace_file(dir.file("absent.json")); }).file() == dir.file("absent.json"));
}

TEST_CASE("a document of another schema or version is rejected before its fields are read") {
  json doc = trace_to_json(two_rank_ddp());
  doc["schema"] = "chakra";
  doc["unexpected"] = true;
  CHECK(json_error(doc).field() == "schema");
  doc = trace_to_json(two_rank_ddp());
  doc["version"] = 2;
  CHECK(json_error(doc).field() == "version");
}

TEST_CASE("unknown enum names are errors listing the accepted names") {
  json doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][0]["kind"] = "matmul";
  const Error e = json_error(doc);
  CHECK(e.file() == "doc.json");
  CHECK(e.field() == "programs[0].ops[0].kind");
  CHECK(e.message().find("gemm, conv") != std::string::npos);

  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][3]["op"] = "allreduce";
  CHECK(json_error(doc).field() == "programs[0].ops[3].op");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][3]["dtype"] = "int8";
  CHECK(json_error(doc).field() == "programs[0].ops[3].dtype");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][2]["type"] = "barrier";
  CHECK(json_error(doc).field() == "programs[0].ops[2].type");
}

TEST_CASE("missing and unknown fields are errors, even the fields of another op type") {
  json doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][3].erase("bytes");
  CHECK(json_error(doc).field() == "programs[0].ops[3].bytes");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][1]["colour"] = "red";
  CHECK(json_error(doc).field() == "programs[0].ops[1].colour");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][3]["kind"] = "gemm";  // a collective has no compute kind
  CHECK(json_error(doc).field() == "programs[0].ops[3].kind");
  doc = trace_to_json(two_rank_ddp());
  doc["metadata"].erase("model");
  CHECK(json_error(doc).field() == "metadata.model");
}

TEST_CASE("fields of the wrong type or range are errors") {
  json doc = trace_to_json(two_rank_ddp());
  doc["world_size"] = "2";
  CHECK(json_error(doc).field() == "world_size");
  doc = trace_to_json(two_rank_ddp());
  doc["world_size"] = 1 << 30;  // a corrupt size must not make the reader allocate gigabytes
  CHECK(json_error(doc).field() == "world_size");
  doc["world_size"] = 1 << 24;  // 40 groups of 2^24 ranks once made the validator allocate 7.5 GB
  CHECK(json_error(doc).message() == "16777216 outside [1, 1048576]");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][0]["stream"] = 1.5;
  CHECK(json_error(doc).field() == "programs[0].ops[0].stream");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][0]["stream"] = 256;
  CHECK(json_error(doc).field() == "programs[0].ops[0].stream");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][0]["flops"] = "many";
  CHECK(json_error(doc).field() == "programs[0].ops[0].flops");
  doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][0]["duration_s"] = -1;  // unmeasured is written by omitting the field
  CHECK(json_error(doc).field() == "programs[0].ops[0].duration_s");
  doc = trace_to_json(two_rank_ddp());
  doc["groups"][0]["communicators"][0][1] = "one";
  CHECK(json_error(doc).field() == "groups[0].communicators[0][1]");
}

TEST_CASE("a dependency pointing forward is rejected by validation after parsing") {
  json doc = trace_to_json(two_rank_ddp());
  doc["programs"][0]["ops"][1]["deps"] = json::array({0, 4});
  CHECK(json_error(doc).field() == "programs[0].ops[1].deps[1]");
}

TEST_CASE("every rank needs exactly one program") {
  json doc = trace_to_json(two_rank_ddp());
  doc["rank_programs"][0]["ranks"] = json::parse("[[0, 0]]");
  CHECK(json_error(doc).message() == "rank 1 has no program");
  doc["rank_programs"][0]["ranks"] = json::parse("[[0, 1], [1, 1]]");
  CHECK(json_error(doc).field() == "rank_programs[0].ranks[1]");
  doc["rank_programs"][0]["ranks"] = json::parse("[[1, 0]]");
  CHECK(json_error(doc).field() == "rank_programs[0].ranks[0]");
  doc["rank_programs"][0]["ranks"] = json::parse("[[0, 2]]");
  CHECK(json_error(doc).field() == "rank_programs[0].ranks[0]");
  doc["rank_programs"][0]["program"] = 1;
  CHECK(json_error(doc).field() == "rank_programs[0].program");
}

TEST_CASE("the sample trace shipped in traces/ is valid") {
  const Trace trace = read_trace_file(SIMTRAIN_SOURCE_DIR "/traces/sample-ddp-2rank.json");
  CHECK(trace.world_size == 2);
  CHECK(trace.program_of(1).streams == std::vector<std::string>{"compute", "comm"});
}

}  // namespace
}  // namespace simtrain::trace
