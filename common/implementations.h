// The one table of what arlab can measure: every body of arlab's fused kernel and every baseline is
// one row, giving its name (the --kernel / --baseline value and the label in a policy entry such as
// "trtllm/lean"), its kind, the algorithms and problems it runs, the node it needs, its CSV labels and
// the model design that predicts it. Nothing else lists implementations: parsing, dispatch
// (kernels/kernel_families.def keys kernels by row), the runner, the model and the CLI help all ask
// this table. Adding a kernel body is its kernel file, a family line, one row here and its model
// design (docs/adding-a-kernel-body.md). Pure C++, no CUDA.
#pragma once

#include <string>
#include <vector>

#include "common/problem.h"

namespace arlab {

// The rows, in table order (the order help texts and `all` lists use).
enum class Impl : int { reference, lean, flashinfer, unfused, nccl, nccl_symmetric, vllm };

enum class ImplKind {
  fused_body,  // a body of arlab's fused kernel: one kernel launch per call, chosen with --kernel
  peer_fused,  // another library's fused kernel (peers/): one launch per call, chosen with --kernel
  baseline,    // an all-reduce step, then arlab's separate residual + RMSNorm (+quant) kernel: --baseline
};

// How a fused kernel maps threads to a token's 16-byte vectors, which limits the configurations it
// takes: arlab's bodies take any tpb / cluster / vectors per thread that cover a token
// (model/legality.h); FlashInfer's one vector per thread and one cluster per token, exactly.
enum class ThreadMapping { arlab, one_vector_per_thread_exact };

// The model design that predicts an implementation (model/oneshot_model.cpp, model/twoshot_model.cpp);
// not_modelled where the model has none (the row's predicted_us is then NaN, with the reason).
enum class ModelDesign { reference, lean, not_modelled };

struct ImplRow {
  Impl id;
  const char* name;            // --kernel / --baseline value; "POLICY/NAME" labels
  ImplKind kind;
  bool runs_oneshot;           // fused bodies: has a one-shot kernel; baselines: runs beside one-shot problems
  bool runs_twoshot;           // the same for two-shot
  bool real_node_only;         // needs one GPU per rank (NCCL refuses two ranks on one GPU)
  int exact_max_ranks;         // largest N at which its sum is the reference's bit for bit; 0: every N
  ModelDesign model;
  const char* csv_implementation;  // the measurement CSV's `implementation` cell
  const char* csv_kernel_variant;  // its `kernel_variant` cell (the fused body the row's kernel is)
  const char* summary;             // one line: what it is (help texts, docs)
  ThreadMapping mapping = ThreadMapping::arlab;  // fused kinds: the configurations its kernel takes
  // Why the row cannot run problem p on a GPU of compute capability cc_major (its own limits beyond
  // the columns above: patterns, dtypes, accumulation, sizes), "" when it can; nullptr: no limits.
  std::string (*refuses)(const Problem& p, int cc_major) = nullptr;
};

// Every row, in Impl order.
const std::vector<ImplRow>& implementation_table();
const ImplRow& implementation(Impl id);
inline const char* to_string(Impl id) { return implementation(id).name; }

// Rows by kind, in table order. kernel_bodies(): every row --kernel takes (arlab's bodies and the
// peers' fused kernels); arlab_bodies(): arlab's own (they have kernel families,
// kernels/families.cmake); modelled_bodies(): the kernel bodies with a model design (what
// `--kernel auto` lets the model policy search); baselines(): the --baseline rows.
std::vector<Impl> kernel_bodies();
std::vector<Impl> arlab_bodies();
std::vector<Impl> modelled_bodies();
std::vector<Impl> baselines();
bool is_kernel_body(Impl id);   // fused_body or peer_fused: one fused kernel per call
bool is_arlab_body(Impl id);    // fused_body
bool is_peer(Impl id);          // implemented by another library (peers/)

// "reference, lean" / "unfused, nccl": the names of rows of one kind, for messages and help.
std::string kernel_body_names();
std::string baseline_names();

// Name -> row; throws InvalidArgument naming the text and listing the valid names. parse_kernel_body
// accepts fused bodies only, parse_baseline baselines only, parse_implementation any row.
Impl parse_kernel_body(const std::string& name);
Impl parse_baseline(const std::string& name);
Impl parse_implementation(const std::string& name);

bool runs_algorithm(Impl id, Algorithm algo);
// "the lean kernel is one-shot only" (a row with one algorithm), "" for a row with both.
std::string algorithm_limit(Impl id);
// The algorithms the row runs, one-shot first.
std::vector<Algorithm> algorithms_of(Impl id);

// Why `id` cannot run problem p on a node with (or without) one GPU per rank, on GPUs of compute
// capability cc_major, or "" when it can: its algorithms, the ranks at which its sum is exact, its
// node, its own limits (ImplRow::refuses). Used by the runner and the policies.
std::string implementation_refusal(Impl id, const Problem& p, bool real_node, int cc_major);

// The FlashInfer release the peer rows are built against (peers/flashinfer.pin), e.g. "0.7.2".
const char* flashinfer_version();

// The largest FlashInfer one-shot Lamport buffer (one of its three: N x the call's input bytes) that
// FlashInfer 0.7.2 addresses correctly: its LamportComm computes the offset of the buffer it clears,
// (flag + 2) % 3 x comm_size, in 32-bit int arithmetic (trtllm_allreduce_fusion.cuh), so a buffer
// above INT32_MAX / 2 wraps that offset negative and the clear of -0.0 lands outside the workspace.
// INT32_MAX / 2 rounded down to the 2 MiB granule FlashInfer sizes its buffers in: 1022 MiB. arlab's
// peers' workspace never makes the buffer larger (peers/peer_layout.h), and the flashinfer row refuses
// one-shot calls that would need more.
constexpr long long kFlashinferLamportBufferMaxBytes = (0x7fffffffLL / 2) & ~((2LL << 20) - 1);

// The input size (bytes per rank) from which vLLM's custom all-reduce takes its two-stage kernel at
// N ranks (full NVLink), -1 when it never does (N = 2): its own one-/two-stage rule.
long long vllm_two_stage_min_bytes(int nranks);

// The row a measurement CSV row names: its `implementation` cell, and its `kernel_variant` cell
// (empty for files written before that column: the reference body). Throws InvalidArgument naming
// the cells when no row has those labels.
Impl implementation_from_csv(const std::string& implementation_cell, const std::string& kernel_variant_cell);

}  // namespace arlab
