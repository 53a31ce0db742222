// The implementation table of common/implementations.h.
#include "common/implementations.h"

#include "common/csv.h"

namespace arlab {

namespace {

// NCCL sums in its ring order, not in rank order 0..N-1, so its sum is the reference's bit for bit
// at N = 2 only (one addition, which commutes).
constexpr int kNcclExactRanks = 2;

}  // namespace

const std::vector<ImplRow>& implementation_table() {
  static const std::vector<ImplRow> rows = {
      {Impl::reference, "reference", ImplKind::fused_body, true, true, false, 0, ModelDesign::reference, "fused",
       "reference",
       "the peer library's design (kernels/oneshot_kernel.cuh, kernels/twoshot_kernel.cuh): one-shot pushes to "
       "every rank's buffer (own slot included), polls every slot and clears the previous buffer in a separate "
       "pass; the seed experiment's subject"},
      {Impl::lean, "lean", ImplKind::fused_body, true, false, false, 0, ModelDesign::lean, "fused", "lean",
       "one-shot only (kernels/oneshot_lean_kernel.cuh): the own slice added from registers (never pushed or "
       "polled), polled slots cleared as they are consumed (no clear pass), the arrival off the critical path, "
       "epilogue operands loaded early, block totals pushed through DSMEM in clusters of 2-4"},
      {Impl::unfused, "unfused", ImplKind::baseline, true, true, false, 0, ModelDesign::not_modelled, "unfused",
       "reference",
       "arlab's all-reduce-only kernel (the reference body, pattern ar) at the trtllm configuration, then the "
       "separate residual + RMSNorm (+quant) kernel"},
      {Impl::nccl, "nccl", ImplKind::baseline, true, true, true, kNcclExactRanks, ModelDesign::not_modelled, "nccl",
       "reference", "ncclAllReduce, then the separate residual + RMSNorm (+quant) kernel (one GPU per rank)"},
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

std::vector<Impl> kernel_bodies() { return rows_of(ImplKind::fused_body); }
std::vector<Impl> baselines() { return rows_of(ImplKind::baseline); }
bool is_kernel_body(Impl id) { return implementation(id).kind == ImplKind::fused_body; }
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

std::string implementation_refusal(Impl id, const Problem& p, bool real_node) {
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
