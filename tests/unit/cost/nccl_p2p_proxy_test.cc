// Tests for simulator/cost/nccl_p2p_proxy.h: NCCL's point-to-point chunk and the share of a GPU's NIC line
// its proxy's chunk rate sustains.
#include "simulator/cost/nccl_p2p_proxy.h"

#include <doctest/doctest.h>

namespace cost = simtrain::cost;

TEST_CASE("NCCL's point-to-point network chunk is 128 KiB, doubled on Grace hosts of Blackwell GPUs") {
  CHECK(cost::nccl_doubles_p2p_chunk("gb200"));
  CHECK(cost::nccl_doubles_p2p_chunk("gb300"));
  CHECK_FALSE(cost::nccl_doubles_p2p_chunk("gh200"));  // Grace with Hopper: compute capability 9
  CHECK_FALSE(cost::nccl_doubles_p2p_chunk("b300"));   // Blackwell on x86
  CHECK(cost::nccl_p2p_net_chunk_bytes(false) == 131072);
  CHECK(cost::nccl_p2p_net_chunk_bytes(true) == 262144);
  // NCCL_P2P_NET_CHUNKSIZE replaces the 128 KiB, still doubled; the buffer's 8 steps bound it.
  CHECK(cost::nccl_p2p_net_chunk_bytes(false, 65536) == 65536);
  CHECK(cost::nccl_p2p_net_chunk_bytes(true, 65536) == 131072);
  CHECK(cost::nccl_p2p_net_chunk_bytes(false, 2 << 20) == 524288);  // 4 MiB / 8
  CHECK(cost::nccl_p2p_net_chunk_bytes(false, 2 << 20, 16 << 20) == 2 << 20);
  // A smaller buffer shrinks the default chunk.
  CHECK(cost::nccl_p2p_net_chunk_bytes(false, 0, 512 << 10) == 65536);
}

TEST_CASE("the proxy's share of the line is its chunk rate over the GPU's NIC line") {
  // 128 KiB every 2.5 us is 52.4 GB/s: above a 400 Gb/s NIC's 50 GB/s, half of an 800 Gb/s one's 100.
  const double chunk_s = 2.5e-6, rate_Bps = 131072 / chunk_s;
  CHECK(cost::nccl_p2p_proxy_line_share(chunk_s, 131072, 50e9) == doctest::Approx(rate_Bps / 50e9));
  CHECK(cost::nccl_p2p_proxy_line_share(chunk_s, 131072, 50e9) > 1);
  CHECK(cost::nccl_p2p_proxy_line_share(chunk_s, 131072, 100e9) == doctest::Approx(0.524288));
  // Twice the chunk at the same cost per chunk: twice the share.
  CHECK(cost::nccl_p2p_proxy_line_share(chunk_s, 262144, 100e9) ==
        doctest::Approx(2 * cost::nccl_p2p_proxy_line_share(chunk_s, 131072, 100e9)));
  // 0 takes the default chunk cost; a GPU without a NIC share has no share.
  CHECK(cost::nccl_p2p_proxy_line_share(0, 131072, 100e9) ==
        doctest::Approx(131072 / cost::kNcclP2pProxyChunkDefault_s / 100e9));
  CHECK(cost::nccl_p2p_proxy_line_share(chunk_s, 131072, 0) == 0);
}

TEST_CASE("the proxy's chunk time is the platform's, or the default where it gives none") {
  CHECK(cost::nccl_p2p_proxy_chunk_s(2.5e-6) == 2.5e-6);
  CHECK(cost::nccl_p2p_proxy_chunk_s(0) == cost::kNcclP2pProxyChunkDefault_s);
}
