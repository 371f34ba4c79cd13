// NCCL's algorithms and protocols, by the names NCCL_ALGO and NCCL_PROTO give them, and the user's choice of
// them. NCCL picks an (algorithm, protocol) pair per collective from its own cost model; simtrain does the
// same from the platform's figures (collective_algorithm.h) unless the user forces one, as NCCL_ALGO and
// NCCL_PROTO force NCCL.
#pragma once

#include <optional>
#include <string>

#include "common/nccl_tuner_plugin.h"

namespace simtrain::cost {

// How an all-reduce is organised. Ring: rings inside and across nodes. Tree: ring phases inside each node,
// NCCL's double binary tree across nodes. NVLS: the NVSwitch reduces inside the node (NVLink SHARP, third
// generation NVSwitch), a ring across nodes. NVLSTree: NVLS inside, the tree across. The other collectives
// are rings whatever is chosen (all-to-all: direct exchanges), as in NCCL, except that all-gather and
// reduce-scatter over one GPU per node may run as PAT (NCCL 2.23 on): Parallel Aggregated Trees, log2 N
// rounds of aggregated exchanges where a ring takes N - 1 steps, moving what the ring moves.
// CollNetDirect and CollNetChain reduce in the network's switches (InfiniBand SHARP, through NCCL's CollNet
// plugin, where NCCL_COLLNET_ENABLE=1): each node sends its buffer up once and receives the result once,
// after gathering it to the node's NIC heads directly (Direct) or along a chain of its GPUs (Chain); NVLS
// across nodes runs the same way, NVLS inside each node.
enum class NcclAlgorithm { Ring, Tree, NVLS, NVLSTree, PAT, CollNetDirect, CollNetChain };

// The number of NcclAlgorithm values, for tables indexed by them.
inline constexpr int kNcclAlgorithmCount = 7;

// The algorithms that reduce in the network's switches across nodes (NVLS counts where it crosses nodes).
bool reduces_in_network(NcclAlgorithm algorithm);

// How the bytes of a ring step move inside a node. LL: 8-byte stores carrying 4 bytes of data and a flag,
// the shortest latency and the least bandwidth; LL128: 128-byte lines with 8 bytes of flags; Simple: bulk
// copies behind a fence per step, the most bandwidth after the longest latency.
enum class NcclProtocol { LL, LL128, Simple };

// NCCL_BUFFSIZE's default: 4 MiB per channel and peer.
inline constexpr double kNcclDefaultBufferBytes = 4 << 20;

// NCCL minor versions of the 2.x series simtrain knows the tuner constants of (nccl_tuner.h): 2.18 to 2.29;
// the newest is the default.
inline constexpr int kNcclOldestMinor = 18;
inline constexpr int kNcclNewestMinor = 29;

// What the user forced; unset = chosen per collective.
struct NcclOverride {
  std::optional<NcclAlgorithm> algorithm;
  std::optional<NcclProtocol> protocol;
  double buffer_bytes = kNcclDefaultBufferBytes;  // NCCL_BUFFSIZE
  double p2p_net_chunk_bytes = 0;                 // NCCL_P2P_NET_CHUNKSIZE; 0 = NCCL's (nccl_p2p_proxy.h)
  int version_minor = kNcclNewestMinor;           // the NCCL release: 2.<version_minor>
  int min_channels = 0;                           // NCCL_MIN_NCHANNELS (NCCL_MIN_CTAS); 0 = unset
  bool collnet = false;  // NCCL_COLLNET_ENABLE=1: CollNet (SHARP) where the network reduces in its switches
  std::optional<NcclTunerPlugin> tuner_plugin;  // the run's tuner plugin, in place of the platform's
};

// "ring", "tree", "nvls", "nvlstree", "pat", "collnetdirect", "collnetchain"; "ll", "ll128", "simple".
const char* to_string(NcclAlgorithm algorithm);
const char* to_string(NcclProtocol protocol);

// Parse NCCL_ALGO / NCCL_PROTO values, case-insensitively ("Ring", "NVLSTree", "PAT", "LL128", ...). Throw
// Error naming `option` and the accepted values otherwise.
NcclAlgorithm parse_nccl_algorithm(const std::string& text, const std::string& option);
NcclProtocol parse_nccl_protocol(const std::string& text, const std::string& option);
// A name of common/nccl_tuner_plugin.h's kNcclTunerPluginNames; Error naming `option` and the accepted
// values otherwise.
NcclTunerPlugin parse_nccl_tuner_plugin(const std::string& text, const std::string& option);
// Parse an NCCL version, "2.26" or "2.26.2", into its minor number. Throw Error naming `option` and the
// known range (2.18 to 2.29) for anything else.
int parse_nccl_version(const std::string& text, const std::string& option);

}  // namespace simtrain::cost
