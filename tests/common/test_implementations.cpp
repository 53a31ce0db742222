// The implementation table (common/implementations.h) on the CPU: every row's labels round-trip
// through the CSV mapping and the name parsers; the refusals say why a row cannot run a problem --
// the peers' own limits included (FlashInfer's NVFP4 below sm_100 and its 32-bit Lamport clear
// offset, vLLM's rank counts and the sums that are not the reference's) -- and the peers' workspace
// part (peers/peer_layout.h) keeps FlashInfer's Lamport buffers inside what it addresses.
#include <algorithm>
#include <string>
#include <vector>

#include "common/implementations.h"
#include "peers/peer_layout.h"
#include "tests/catch.h"

using namespace arlab;

namespace {

Problem problem(int nranks, int tokens, int hidden, Algorithm algo = Algorithm::oneshot) {
  Problem p;
  p.nranks = nranks;
  p.tokens = tokens;
  p.hidden = hidden;
  p.algo = algo;
  p.acc = nranks == 2 ? Accumulation::pairwise : Accumulation::fp32_acc;
  return p;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("implementation table: every row round-trips through its name and its CSV labels") {
  const std::vector<ImplRow>& table = implementation_table();
  const std::vector<Impl> baseline_rows = baselines();
  REQUIRE(table.size() >= 7u);  // reference, lean, flashinfer, unfused, nccl, nccl_symmetric, vllm
  for (const ImplRow& r : table) {
    INFO(r.name);
    CHECK(&implementation(r.id) == &r);
    CHECK(parse_implementation(r.name) == r.id);
    CHECK(implementation_from_csv(r.csv_implementation, r.csv_kernel_variant) == r.id);
    CHECK(is_kernel_body(r.id) != (std::find(baseline_rows.begin(), baseline_rows.end(), r.id) != baseline_rows.end()));
    CHECK(std::string(r.summary).size() > 10);
  }
  CHECK(is_peer(Impl::flashinfer));
  CHECK(is_peer(Impl::vllm));
  CHECK(!is_peer(Impl::reference));
  CHECK(is_kernel_body(Impl::flashinfer));
  CHECK(!is_arlab_body(Impl::flashinfer));
  CHECK(std::string(implementation(Impl::flashinfer).csv_implementation) ==
        std::string("flashinfer-") + flashinfer_version());
  // Only bodies with a model design are searched by --kernel auto.
  for (Impl id : modelled_bodies()) CHECK(implementation(id).model != ModelDesign::not_modelled);
  CHECK_THROWS_WITH(parse_baseline("flashinfer"), Catch::Contains("flashinfer"));
  CHECK_THROWS_WITH(implementation_from_csv("flashinfer-0.0.1", "flashinfer"), Catch::Contains("flashinfer-0.0.1"));
}

TEST_CASE("refusals: FlashInfer's NVFP4 below sm_100 and its one-shot Lamport buffer above 1022 MiB") {
  Problem p = problem(2, 128, 4096);
  CHECK(implementation_refusal(Impl::flashinfer, p, false, 9) == "");
  p.pattern = Pattern::ar_res_rms_fp4;
  CHECK(contains(implementation_refusal(Impl::flashinfer, p, false, 9), "sm_100"));
  CHECK(implementation_refusal(Impl::flashinfer, p, false, 10) == "");

  // The cap: INT32_MAX / 2 on a 2 MiB granule.
  CHECK(kFlashinferLamportBufferMaxBytes == 1022LL * 1024 * 1024);
  CHECK(2 * kFlashinferLamportBufferMaxBytes <= 0x7fffffffLL);
  // N = 8, H 16384, bf16: 4096 tokens need 8 x 128 MiB = 1 GiB: refused one-shot, two-shot runs.
  Problem big = problem(8, 4096, 16384);
  CHECK(contains(implementation_refusal(Impl::flashinfer, big, false, 9), "32-bit clear offset"));
  big.algo = Algorithm::twoshot;
  CHECK(implementation_refusal(Impl::flashinfer, big, false, 9) == "");
  // Just below the cap runs one-shot.
  Problem below = problem(8, 4088, 16384);
  CHECK(implementation_refusal(Impl::flashinfer, below, false, 9) == "");
}

TEST_CASE("refusals: vLLM's rank counts, its fp32 sum beyond N = 2, its two-stage kernel; NCCL needs a real node") {
  CHECK(implementation_refusal(Impl::vllm, problem(2, 4096, 8192), false, 9) == "");  // one stage at N = 2
  Problem pairwise4 = problem(4, 8, 4096);
  pairwise4.acc = Accumulation::pairwise;
  CHECK(contains(implementation_refusal(Impl::vllm, pairwise4, false, 9), "fp32_acc"));
  CHECK(implementation_refusal(Impl::vllm, problem(4, 8, 4096), false, 9) == "");
  // Two-stage from 512 KiB at N <= 4 and 256 KiB at N <= 8: its rank-rotated sum is not the reference's.
  CHECK(vllm_two_stage_min_bytes(2) == -1);
  CHECK(vllm_two_stage_min_bytes(4) == 512 * 1024);
  CHECK(vllm_two_stage_min_bytes(8) == 256 * 1024);
  CHECK(implementation_refusal(Impl::vllm, problem(4, 63, 4096), false, 9) == "");  // 504 KiB
  CHECK(contains(implementation_refusal(Impl::vllm, problem(4, 64, 4096), false, 9), "two-stage"));
  CHECK(contains(implementation_refusal(Impl::vllm, problem(16, 8, 4096), false, 9), "N = 16"));
  CHECK(contains(implementation_refusal(Impl::nccl, problem(2, 8, 4096), false, 9), "real node"));
  CHECK(implementation_refusal(Impl::nccl, problem(2, 8, 4096), true, 9) == "");
  CHECK(contains(implementation_refusal(Impl::nccl_symmetric, problem(4, 8, 4096), true, 9), "N <= 2"));
}

TEST_CASE("peers' workspace part: after arlab's, aligned, in order, FlashInfer's Lamport buffers capped") {
  for (int n : {2, 4, 8}) {
    for (long long tokens : {64LL, 4096LL, 32768LL}) {
      const kernels::LamportLayout l = kernels::lamport_layout(tokens, 16384, n, 2);
      const peers::PeerLayout p = peers::peer_layout(l, n);
      INFO("N " << n << " tokens " << tokens);
      CHECK(p.offset >= kernels::workspace_bytes(l));
      CHECK(p.fi_comm == p.offset);
      CHECK(p.fi_barrier >= p.fi_comm + n * l.slot_bytes);
      CHECK(p.fi_lamport >= p.fi_barrier + n * peers::kFlashinferBarrierFlags * sizeof(int));
      CHECK(p.fi_lamport_buffer_bytes ==
            std::min<size_t>(n * l.slot_bytes, static_cast<size_t>(kFlashinferLamportBufferMaxBytes)));
      CHECK(p.fi_flags >= p.fi_lamport + 3 * p.fi_lamport_buffer_bytes);
      CHECK(p.vllm_signal == p.fi_flags + peers::kFlashinferFlagsBytes);
      CHECK(p.vllm_input >= p.vllm_signal + peers::kVllmSignalBytes + l.slot_bytes);
      CHECK(p.vllm_rank_data >= p.vllm_input + l.slot_bytes);
      CHECK(p.total_bytes == p.vllm_rank_data + peers::kVllmRankDataBytes);
      for (size_t off : {p.fi_comm, p.fi_barrier, p.fi_lamport, p.fi_flags, p.vllm_input, p.vllm_rank_data})
        CHECK(off % kernels::kLayoutAlign == 0);
    }
  }
}
