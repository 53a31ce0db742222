// The implementation table of common/implementations.h.
#include "common/implementations.h"

#include "common/csv.h"

namespace arlab {

namespace {

// NCCL sums in its ring order, not in rank order 0..N-1, so its sum is the reference's bit for bit
// at N = 2 only (one addition, which commutes).
constexpr int kNcclExactRanks = 2;

// FlashInfer 0.7.2's NVFP4 conversion (trtllm_allreduce_fusion.cuh cvt_warp_fp16_to_fp4) is compiled
// for sm_100 and later only: on sm_90 it returns 0, so the quantized output would be zeros.
constexpr int kFlashinferFp4MinCcMajor = 10;

std::string flashinfer_refuses(const Problem& p, int cc_major) {
  if (has_fp4(p.pattern) && cc_major < kFlashinferFp4MinCcMajor)
    return std::string("FlashInfer ") + flashinfer_version() + " writes zeros for NVFP4 patterns below sm_100 (its e2m1 "
           "conversion is compiled for sm_100+ only); this GPU is sm_" + std::to_string(cc_major) + "x";
  const long long lamport = static_cast<long long>(p.nranks) * p.tokens * p.hidden * dtype_bytes(p.dtype);
  if (p.algo == Algorithm::oneshot && lamport > kFlashinferLamportBufferMaxBytes)
    return std::string("FlashInfer ") + flashinfer_version() + "'s one-shot Lamport buffer would be N x input = " +
           std::to_string(lamport) + " bytes, above the " + std::to_string(kFlashinferLamportBufferMaxBytes) +
           " its 32-bit clear offset addresses correctly (its own rule takes two-shot long before: --policy flashinfer)";
  return "";
}

// vLLM's custom all-reduce (vllm_custom_all_reduce.cuh): 2, 4, 6 or 8 GPUs; sums in fp32 and rounds
// once (so at N > 2 only arlab's fp32_acc mode is its sum); its two-stage kernel (N > 2 above
// vllm_two_stage_min_bytes) starts each rank's part at that rank (rank order rotated), so its sums
// are the reference's bit for bit only in the one-stage kernel. No residual: its baseline is the
// all-reduce step, then arlab's separate norm kernel.
std::string vllm_refuses(const Problem& p, int) {
  if (p.nranks > 8) return "vLLM's custom all-reduce supports 2, 4, 6 or 8 GPUs; N = " + std::to_string(p.nranks);
  if (p.nranks > 2 && p.acc != Accumulation::fp32_acc && p.dtype != DType::fp32)
    return "vLLM's custom all-reduce sums in fp32 and rounds once: at N > 2 that is --acc fp32_acc, not pairwise";
  const long long bytes = static_cast<long long>(p.tokens) * p.hidden * dtype_bytes(p.dtype);
  if (p.nranks > 2 && bytes >= vllm_two_stage_min_bytes(p.nranks))
    return "vLLM's two-stage kernel (N = " + std::to_string(p.nranks) + ", " + std::to_string(bytes) +
           " bytes >= " + std::to_string(vllm_two_stage_min_bytes(p.nranks)) +
           ") reduces each rank's part in a rank order rotated to start at that rank, so its sums are not the "
           "reference's bit for bit";
  return "";
}

}  // namespace

long long vllm_two_stage_min_bytes(int nranks) {
  // vllm_custom_all_reduce.cuh CustomAllreduce::allreduce: one stage for 2 GPUs; with full NVLink one
  // stage below 512 KiB at <= 4 GPUs and below 256 KiB at <= 8, else two stages.
  constexpr long long kOneStageBytesUpTo4 = 512 * 1024;
  constexpr long long kOneStageBytesUpTo8 = 256 * 1024;
  if (nranks <= 2) return -1;
  return nranks <= 4 ? kOneStageBytesUpTo4 : kOneStageBytesUpTo8;
}

const char* flashinfer_version() { return ARLAB_FLASHINFER_VERSION; }

const std::vector<ImplRow>& implementation_table() {
  static const std::string flashinfer_label = std::string("flashinfer-") + flashinfer_version();
  static const std::vector<ImplRow> rows = {
      {Impl::reference, "reference", ImplKind::fused_body, true, true, false, 0, ModelDesign::reference, "fused",
       "reference",
       "the peer library's design (kernels/oneshot_kernel.cuh, kernels/twoshot_kernel.cuh): one-shot pushes to "
       "every rank's buffer (own slot included), polls every slot and clears the previous buffer in a separate "
       "pass; the seed experiment's subject"},
      {Impl::lean, "lean", ImplKind::fused_body, true, true, false, 0, ModelDesign::lean, "fused", "lean",
       "kernels/oneshot_lean_kernel.cuh: the own slice added from registers (never pushed or polled), polled "
       "slots cleared as they are consumed (no clear pass), the arrival off the critical path, epilogue operands "
       "loaded early, block totals sent into the other blocks' shared memory (st.async, one mbarrier wait) in clusters; kernels/twoshot_lean_kernel.cuh: "
       "two-shot on the Lamport workspace with no barrier (each row pushed to its owner, the owner's sum "
       "pushed back), the same ideas"},
      {Impl::flashinfer, "flashinfer", ImplKind::peer_fused, true, true, false, 0, ModelDesign::not_modelled,
       flashinfer_label.c_str(), "flashinfer",
       "FlashInfer's fused all-reduce kernels (trtllm_allreduce_fusion.cuh of the pinned flashinfer-python wheel): "
       "one-shot Lamport and two-shot, one 16-byte vector per thread and one cluster per token; its own launch "
       "configuration is --policy flashinfer",
       ThreadMapping::one_vector_per_thread_exact, flashinfer_refuses},
      {Impl::unfused, "unfused", ImplKind::baseline, true, true, false, 0, ModelDesign::not_modelled, "unfused",
       "reference",
       "arlab's all-reduce-only kernel (the reference body, pattern ar) at the trtllm configuration, then the "
       "separate residual + RMSNorm (+quant) kernel"},
      {Impl::nccl, "nccl", ImplKind::baseline, true, true, true, kNcclExactRanks, ModelDesign::not_modelled, "nccl",
       "reference", "ncclAllReduce, then the separate residual + RMSNorm (+quant) kernel (one GPU per rank)"},
      {Impl::nccl_symmetric, "nccl_symmetric", ImplKind::baseline, true, true, true, kNcclExactRanks,
       ModelDesign::not_modelled, "nccl_symmetric", "reference",
       "ncclAllReduce on buffers from ncclMemAlloc registered with ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC) "
       "(NCCL >= 2.27's symmetric kernels), then the separate norm kernel (one GPU per rank)"},
      {Impl::vllm, "vllm", ImplKind::baseline, true, true, false, 0, ModelDesign::not_modelled, "vllm", "reference",
       "vLLM's custom all-reduce (vllm_custom_all_reduce.cuh of the pinned flashinfer-python wheel, its own "
       "one-/two-stage rule, 36 blocks of 512 threads), then the separate norm kernel",
       ThreadMapping::arlab, vllm_refuses},
  };
  return rows;
}

const ImplRow& implementation(Impl id) {
  for (const ImplRow& r : implementation_table())
    if (r.id == id) return r;
  throw InvalidArgument("implementation id " + std::to_string(static_cast<int>(id)) + " has no table row");
}

namespace {

std::vector<Impl> rows_of(ImplKind kind) {
  std::vector<Impl> out;
  for (const ImplRow& r : implementation_table())
    if (r.kind == kind) out.push_back(r.id);
  return out;
}

std::string names_of(const std::vector<Impl>& ids) {
  std::string out;
  for (Impl id : ids) out += (out.empty() ? "" : ", ") + std::string(to_string(id));
  return out;
}

Impl parse_among(const std::string& name, const std::vector<Impl>& ids, const char* what) {
  for (Impl id : ids)
    if (name == to_string(id)) return id;
  throw InvalidArgument("unknown " + std::string(what) + " '" + name + "' (expected " + names_of(ids) + ")");
}

std::vector<Impl> all_rows() {
  std::vector<Impl> out;
  for (const ImplRow& r : implementation_table()) out.push_back(r.id);
  return out;
}

}  // namespace

std::vector<Impl> kernel_bodies() {
  std::vector<Impl> out;
  for (const ImplRow& r : implementation_table())
    if (r.kind != ImplKind::baseline) out.push_back(r.id);
  return out;
}
std::vector<Impl> arlab_bodies() { return rows_of(ImplKind::fused_body); }
std::vector<Impl> modelled_bodies() {
  std::vector<Impl> out;
  for (Impl id : kernel_bodies())
    if (implementation(id).model != ModelDesign::not_modelled) out.push_back(id);
  return out;
}
std::vector<Impl> baselines() { return rows_of(ImplKind::baseline); }
bool is_kernel_body(Impl id) { return implementation(id).kind != ImplKind::baseline; }
bool is_arlab_body(Impl id) { return implementation(id).kind == ImplKind::fused_body; }
bool is_peer(Impl id) { return id == Impl::flashinfer || id == Impl::vllm; }
std::string kernel_body_names() { return names_of(kernel_bodies()); }
std::string baseline_names() { return names_of(baselines()); }

Impl parse_kernel_body(const std::string& name) { return parse_among(name, kernel_bodies(), "kernel body"); }
Impl parse_baseline(const std::string& name) { return parse_among(name, baselines(), "baseline"); }
Impl parse_implementation(const std::string& name) { return parse_among(name, all_rows(), "implementation"); }

bool runs_algorithm(Impl id, Algorithm algo) {
  const ImplRow& r = implementation(id);
  return algo == Algorithm::oneshot ? r.runs_oneshot : r.runs_twoshot;
}

std::string algorithm_limit(Impl id) {
  const ImplRow& r = implementation(id);
  if (r.runs_oneshot == r.runs_twoshot) return "";
  return std::string("the ") + r.name + (r.kind == ImplKind::fused_body ? " kernel" : " baseline") + " is " +
         (r.runs_oneshot ? "one-shot" : "two-shot") + " only";
}

std::vector<Algorithm> algorithms_of(Impl id) {
  std::vector<Algorithm> out;
  for (Algorithm a : {Algorithm::oneshot, Algorithm::twoshot})
    if (runs_algorithm(id, a)) out.push_back(a);
  return out;
}

std::string implementation_refusal(Impl id, const Problem& p, bool real_node, int cc_major) {
  const ImplRow& r = implementation(id);
  if (!runs_algorithm(id, p.algo))
    return algorithm_limit(id) + " (it has no " + to_string(p.algo) + " kernel)";
  if (r.exact_max_ranks > 0 && p.nranks > r.exact_max_ranks)
    return std::string("the ") + r.name + " implementation is gated at N <= " + std::to_string(r.exact_max_ranks) +
           " only (its sum is not in rank order 0..N-1, so it is not the reference's bit for bit); N = " +
           std::to_string(p.nranks);
  if (r.real_node_only && !real_node)
    return std::string("the ") + r.name + " implementation needs a real node: one GPU per rank, one process per rank "
           "under mpirun (it refuses two ranks on one GPU); on the emulated node use --baseline unfused";
  if (r.refuses != nullptr) return r.refuses(p, cc_major);
  return "";
}

Impl implementation_from_csv(const std::string& implementation_cell, const std::string& kernel_variant_cell) {
  const std::string variant = kernel_variant_cell.empty() ? "reference" : kernel_variant_cell;
  for (const ImplRow& r : implementation_table())
    if (implementation_cell == r.csv_implementation && variant == r.csv_kernel_variant) return r.id;
  std::string known;
  for (const ImplRow& r : implementation_table())
    known += (known.empty() ? "" : ", ") + std::string(r.csv_implementation) + "/" + r.csv_kernel_variant;
  throw InvalidArgument("implementation '" + cut_for_message(implementation_cell) + "' with kernel_variant '" +
                        cut_for_message(kernel_variant_cell) +
                        "' is no implementation of this arlab (implementation/kernel_variant: " + known + ")");
}

}  // namespace arlab
