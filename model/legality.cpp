// check_legal: the launch-configuration rules of legality.h, each failure message naming the
// invariant, the values and the limit.
#include "model/legality.h"

#include <algorithm>
#include <string>

#include "common/launch_limits.h"
#include "model/occupancy.h"

namespace arlab::model {

namespace {
std::string str(long long v) { return std::to_string(v); }
bool is_cluster_size(int c) { return c >= 1 && c <= kMaxClusterSize && (c & (c - 1)) == 0; }  // 1, 2, 4, 8
}  // namespace

int required_vecs_per_thread(const Problem& p, int tpb, int cluster) {
  const long long covered = static_cast<long long>(tpb) * cluster;
  if (covered <= 0) return 0;
  return static_cast<int>((threads_per_token(p) + covered - 1) / covered);
}

std::string legality_violation(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const KernelResources& r) {
  try {
    validate(p);
  } catch (const InvalidArgument& e) {
    return std::string("invalid problem: ") + e.what();
  }
  auto cfg = [&c] { return " (config " + to_string(c) + ")"; };
  // Rule 1: shape.
  const int tpb_limit = std::min(kMaxThreadsPerBlock, s.max_threads_per_block);
  if (c.tpb < 1 || c.tpb > tpb_limit)
    return "rule 1 (block size): tpb = " + str(c.tpb) + " must be in [1, " + str(tpb_limit) + "]" + cfg();
  if (!is_cluster_size(c.cluster))
    return "rule 1 (cluster size): cluster = " + str(c.cluster) + " must be 1, 2, 4 or 8" + cfg();
  if (c.cluster > s.max_cluster_size)
    return "rule 1 (cluster size): cluster = " + str(c.cluster) + " exceeds the maximum cluster size " +
           str(s.max_cluster_size) + " of " + s.name + " (cc " + str(s.cc_major) + "." + str(s.cc_minor) + ")" + cfg();
  if (c.grid < c.cluster || c.grid % c.cluster != 0)
    return "rule 1 (grid): grid = " + str(c.grid) + " must be a positive multiple of cluster = " + str(c.cluster) +
           cfg();
  if (c.grid > kMaxGridBlocks)
    return "rule 1 (grid): grid = " + str(c.grid) + " exceeds " + str(kMaxGridBlocks) + cfg();
  // Rule 2: mapping.
  if (c.vecs_per_thread != 1 && c.vecs_per_thread != 2 && c.vecs_per_thread != 4)
    return "rule 2 (vectors per thread): vecs_per_thread = " + str(c.vecs_per_thread) + " must be 1, 2 or 4" + cfg();
  const int need = required_vecs_per_thread(p, c.tpb, c.cluster);
  if (c.vecs_per_thread != need)
    return "rule 2 (token coverage): vecs_per_thread = " + str(c.vecs_per_thread) + " but a cluster of " +
           str(c.cluster) + " x " + str(c.tpb) + " threads covers the " + str(threads_per_token(p)) +
           " vectors of a token (H = " + str(p.hidden) + ", " + to_string(p.dtype) + ") with exactly ceil(" +
           str(threads_per_token(p)) + " / " + str(static_cast<long long>(c.tpb) * c.cluster) + ") = " + str(need) +
           " vectors per thread" + cfg();
  // Rule 2b: the implementation's own mapping (common/implementations.h ThreadMapping).
  if (implementation(c.impl).mapping == ThreadMapping::one_vector_per_thread_exact &&
      (c.vecs_per_thread != 1 || static_cast<long long>(c.tpb) * c.cluster != threads_per_token(p)))
    return std::string("rule 2b (") + to_string(c.impl) + " mapping): its kernel maps one 16-byte vector per thread "
           "and one cluster per token, so tpb x cluster must be the " + str(threads_per_token(p)) +
           " vectors of a token with vecs_per_thread 1; got " + str(c.tpb) + " x " + str(c.cluster) + ", vpt " +
           str(c.vecs_per_thread) + cfg();
  // Rule 3: resources.
  const OccupancyLimits occ = occupancy_limits(s, c.tpb, r.regs_per_thread, r.smem_per_block_bytes);
  if (occ.blocks_per_sm < 1)
    return "rule 3 (resources): a block of " + str(c.tpb) + " threads x " + str(r.regs_per_thread) +
           " registers with " + str(r.smem_per_block_bytes) + " B shared memory does not fit on an SM of " + s.name +
           " (limits: warps " + str(occ.by_warps) + ", registers " + str(occ.by_registers) + ", shared memory " +
           str(occ.by_shared_memory) + " blocks)" + cfg();
  const int clusters = max_active_clusters(s, c.cluster, occ.blocks_per_sm);
  if (clusters < 1)
    return "rule 3 (cluster placement): no cluster of " + str(c.cluster) + " blocks fits on " + s.name + cfg();
  // Rule 4: two-shot.
  if (c.algo == Algorithm::twoshot) {
    if (p.tokens < p.nranks)
      return "rule 4 (two-shot tokens): tokens = " + str(p.tokens) + " must be >= nranks = " + str(p.nranks) + cfg();
    if (c.tpb < p.nranks)
      return "rule 4 (two-shot block size): tpb = " + str(c.tpb) + " must be >= nranks = " + str(p.nranks) + cfg();
    const long long coresident_clusters = static_cast<long long>(clusters) * c.cluster;
    if (c.grid > coresident_clusters)
      return "rule 4 (two-shot co-residency): grid = " + str(c.grid) + " blocks but only " + str(clusters) +
             " clusters of " + str(c.cluster) + " (" + str(coresident_clusters) + " blocks) can be resident on " +
             s.name + " at " + str(occ.blocks_per_sm) + " blocks/SM" + cfg();
    const long long coresident_blocks = static_cast<long long>(occ.blocks_per_sm) * s.sm_count;
    if (c.grid > coresident_blocks)
      return "rule 4 (two-shot co-residency): grid = " + str(c.grid) + " exceeds " + str(occ.blocks_per_sm) +
             " blocks/SM x " + str(s.sm_count) + " SMs = " + str(coresident_blocks) + cfg();
    if (c.grid > kMaxTwoShotBlocks)
      return "rule 4 (two-shot barrier flags): grid = " + str(c.grid) + " exceeds the workspace's " +
             str(kMaxTwoShotBlocks) + " barrier flags" + cfg();
    if (is_peer(c.impl) && c.grid > kPeerBarrierFlags)
      return "rule 4 (two-shot barrier flags): grid = " + str(c.grid) + " exceeds the " + str(kPeerBarrierFlags) +
             " barrier flags of " + to_string(c.impl) + "'s two-shot kernel" + cfg();
  }
  return "";
}

void check_legal(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const KernelResources& r) {
  const std::string v = legality_violation(p, c, s, r);
  if (!v.empty()) throw InvalidArgument("illegal launch configuration: " + v);
}

}  // namespace arlab::model
