// Specification of the Chakra reader and writer (simulator/trace/chakra_trace.h): a trace written as one
// Chakra file per rank reads back with the same ops, durations and peers; bad files are refused with the
// file and node.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cstdlib>
#include <filesystem>

#include "chakra_et.pb.h"
#include "common/error.h"
#include "common/file_io.h"
#include "simulator/trace/chakra_stream.h"
#include "simulator/trace/chakra_trace.h"
#include "simulator/trace/dependency_pruning.h"
#include "tests/unit/trace/trace_fixtures.h"

namespace simtrain::trace {
namespace {

namespace fs = std::filesystem;
namespace pb = simtrain::chakra;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "simtrain-chakra-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<std::vector<double>> durations_of(const Trace& trace) {
  std::vector<std::vector<double>> out;
  for (const Program& p : trace.programs) {
    out.emplace_back();
    for (std::size_t i = 0; i < p.ops.size(); ++i)
      out.back().push_back(1e-6 * (static_cast<double>(i) + 1.5));
  }
  return out;
}

Trace read_back(const fs::path& dir, int world, ImportReport& report) {
  std::vector<std::string> bytes, origins;
  for (int r = 0; r < world; ++r) {
    origins.push_back((dir / ("step." + std::to_string(r) + ".et")).string());
    bytes.push_back(read_file(origins.back()));
  }
  return import_chakra(bytes, origins, report);
}

std::string file_of(const std::vector<pb::Node>& nodes) {
  std::string out;
  pb::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  append_chakra_message(out, metadata.SerializeAsString());
  for (const pb::Node& n : nodes) append_chakra_message(out, n.SerializeAsString());
  return out;
}

pb::Node comp_node(std::uint64_t id, std::uint64_t micros) {
  pb::Node n;
  n.set_id(id);
  n.set_name("k" + std::to_string(id));
  n.set_type(pb::COMP_NODE);
  n.set_duration_micros(micros);
  return n;
}

std::string error_of(const std::vector<std::string>& files) {
  std::vector<std::string> origins;
  for (std::size_t r = 0; r < files.size(); ++r) origins.push_back("t." + std::to_string(r) + ".et");
  ImportReport report;
  try {
    import_chakra(files, origins, report);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a trace written as Chakra files reads back with the same ops and durations") {
  TempDir dir;
  const Trace original = testing::two_rank_ddp();
  const auto durations = durations_of(original);
  write_chakra_traces(original, durations, (dir.path / "step").string());
  CHECK(fs::exists(dir.path / "step.0.et"));
  CHECK(fs::exists(dir.path / "step.1.et"));
  CHECK_FALSE(fs::exists(dir.path / "step.comm_groups.json"));  // the only communicator is the world
  CHECK(looks_like_chakra(read_file((dir.path / "step.0.et").string())));

  ImportReport report;
  const Trace back = read_back(dir.path, 2, report);
  CHECK(report.format == TraceFormat::ChakraProtobuf);
  CHECK(back.world_size == 2);
  REQUIRE(back.programs.size() == 1);  // both ranks' files say the same
  CHECK(back.rank_program == std::vector<std::uint32_t>{0, 0});
  const Program& program = back.programs[0];
  CHECK(program.streams == original.programs[0].streams);
  REQUIRE(program.ops.size() == original.programs[0].ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    Op expected = original.programs[0].ops[i];
    // Deps the stream order implies are dropped on reading; the cost model's duration is the measured one.
    Program before = original.programs[0];
    before.ops.resize(i);
    expected.deps = minimal_dependencies(before, expected.stream, expected.deps);
    if (expected.type == OpType::Compute) expected.compute.duration_s = durations[0][i];
    CAPTURE(i);
    CHECK(program.ops[i] == expected);
  }
}

TEST_CASE("point-to-point ops carry absolute peers, and smaller communicators their ranks") {
  TempDir dir;
  const Trace original = testing::two_stage_pipeline();
  write_chakra_traces(original, durations_of(original), (dir.path / "step").string());
  CHECK(fs::exists(dir.path / "step.comm_groups.json"));
  ImportReport report;
  const Trace back = read_back(dir.path, 4, report);
  CHECK(back.programs.size() == 2);  // both ranks of a stage send to the rank 2 above or receive from 2 below
  const Op& send = back.program_of(0).ops[1];
  CHECK(send.type == OpType::Send);
  CHECK(back.groups[send.p2p.group].communicators[0][0 + send.p2p.peer_offset] == 2);  // rank 0 sends to 2
  CHECK(send.p2p.tag == 7);
  const Op& recv = back.program_of(3).ops[0];
  CHECK(recv.type == OpType::Recv);
  CHECK(3 + recv.p2p.peer_offset == 1);
  const Op& gather = back.program_of(2).ops[2];
  CHECK(gather.collective.kind == CollectiveKind::AllGather);
  const CommunicatorIndex index(back);
  CHECK(index.communicator(gather.collective.group, 2) == std::vector<int>{2, 3});
  CHECK(index.communicator(gather.collective.group, 3) == std::vector<int>{2, 3});
}

TEST_CASE("Chakra nodes without simtrain's attributes: duration, num_ops, collectives from comm_type") {
  pb::Node first = comp_node(10, 250);
  pb::Node second = comp_node(11, 0);
  auto* ops = second.add_attr();
  ops->set_name("num_ops");
  ops->set_int64_val(1000000);
  auto* size = second.add_attr();
  size->set_name("tensor_size");
  size->set_uint64_val(4096);
  second.add_data_deps(10);
  pb::Node coll;
  coll.set_id(12);
  coll.set_type(pb::COMM_COLL_NODE);
  coll.add_data_deps(11);
  auto* type = coll.add_attr();
  type->set_name("comm_type");
  type->set_int64_val(pb::REDUCE_SCATTER);
  auto* bytes = coll.add_attr();
  bytes->set_name("comm_size");
  bytes->set_int64_val(1 << 20);
  ImportReport report;
  const Trace trace = import_chakra({file_of({first, second, coll})}, {"dir/run.0.et"}, report);
  CHECK(trace.metadata.model == "run");
  const auto& p = trace.programs[0];
  REQUIRE(p.ops.size() == 3);
  CHECK(p.ops[0].compute.duration_s == simtrain::testing::Approx(250e-6));
  CHECK(p.ops[1].compute.duration_s == -1);
  CHECK(p.ops[1].compute.flops == 1e6);
  CHECK(p.ops[1].compute.bytes == 4096);
  CHECK(p.ops[1].deps.empty());  // the same stream orders them
  CHECK(p.ops[2].collective.kind == CollectiveKind::ReduceScatter);
  CHECK(p.ops[2].collective.bytes == 1 << 20);
  CHECK(p.ops[2].deps == std::vector<std::uint32_t>{1});
}

TEST_CASE("bad Chakra files are refused with the file and node") {
  pb::Node dangling = comp_node(2, 5);
  dangling.add_data_deps(99);
  CHECK(error_of({file_of({comp_node(1, 5), dangling})}) ==
        "t.0.et: node 2 (k2): depends on node 99, which is not an earlier node of the file");

  CHECK(error_of({file_of({comp_node(1, 5), comp_node(1, 5)})}) ==
        "t.0.et: node 1 (k1): id: appears twice in the file");

  pb::Node send;
  send.set_id(3);
  send.set_type(pb::COMM_SEND_NODE);
  auto* dst = send.add_attr();
  dst->set_name("comm_dst");
  dst->set_int32_val(5);
  CHECK(error_of({file_of({send}), file_of({})})
            .find("node 3: comm_dst: missing, or not another rank in [0, 2)") != std::string::npos);

  pb::Node gather;
  gather.set_id(4);
  gather.set_type(pb::COMM_COLL_NODE);
  auto* type = gather.add_attr();
  type->set_name("comm_type");
  type->set_int64_val(pb::GATHER);
  CHECK(error_of({file_of({gather})}).find("comm_type: 3 is no collective simtrain models") !=
        std::string::npos);

  std::string truncated = file_of({comp_node(1, 5)});
  truncated.pop_back();
  CHECK(error_of({truncated}).find("claims") != std::string::npos);

  std::string huge = file_of({});
  huge += "\xff\xff\xff\xff\x0f";  // a 4 GiB message in a file of a few bytes
  CHECK(error_of({huge}).find("past the end of the file") != std::string::npos);

  CHECK(error_of({"{\"schema\": 1}"}).find("t.0.et: message at byte 0 claims 123 bytes") == 0);  // JSON
  CHECK(error_of({std::string("\x02\xff\xff", 3)}) ==
        "t.0.et: does not start with a Chakra GlobalMetadata message");
}

TEST_CASE("looks_like_chakra: a GlobalMetadata first, not JSON or gzip") {
  CHECK(looks_like_chakra(file_of({comp_node(1, 5)})));
  CHECK_FALSE(looks_like_chakra("{\"schema\": \"simtrain-trace\", \"version\": 1}"));
  CHECK_FALSE(looks_like_chakra(std::string("\x1f\x8b\x08\x00", 4)));
  CHECK_FALSE(looks_like_chakra(""));
}

TEST_CASE("the writer refuses durations that do not match the programs") {
  TempDir dir;
  const Trace trace = testing::two_rank_ddp();
  CHECK_THROWS_AS(write_chakra_traces(trace, {}, (dir.path / "x").string()), Error);
  CHECK_THROWS_AS(write_chakra_traces(trace, {{1.0}}, (dir.path / "x").string()), Error);
}

}  // namespace
}  // namespace simtrain::trace
