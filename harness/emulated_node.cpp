// Implementation of harness/emulated_node.h.
#include "harness/emulated_node.h"

#include <cstdlib>

#include "harness/check.h"

namespace arlab::harness {

void request_device_connections() {
  constexpr int kNoOverwrite = 0;
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", kNoOverwrite);  // docs/nodes.md: measured with 32
}

EmulatedNode::EmulatedNode(const NodeOptions& options) : NodeBase(options) {
  request_device_connections();
  ARLAB_CUDA_CHECK(cudaSetDevice(options.device));
  ARLAB_CUDA_CHECK(cudaFree(nullptr));  // create the primary context before the green ones
  driver_ = DriverApi::load();
  device_ = query_device(options.device);
  const int sms = options.sms_per_rank > 0 ? options.sms_per_rank
                                           : model::sm_partition(device_.spec, options.nranks).sm_count;
  partitions_ = create_green_partitions(driver_, options.device, options.nranks, sms);
  rank_spec_ = model::sm_partition_with_count(device_.spec, partitions_[0].sm_count, options.nranks);
  const WorkspaceShape shape{options.max_tokens, options.max_hidden, options.nranks, options.max_elem_bytes,
                             options.peers};
  std::vector<void*> bases;
  for (int r = 0; r < options.nranks; ++r) {
    ranks_.push_back(std::make_unique<RankContext>(r, options.nranks, partitions_[static_cast<size_t>(r)].stream.get(),
                                                   rank_spec_, shape));
    bases.push_back(ranks_.back()->workspace().base());
    local_ranks_.push_back(r);
  }
  for (auto& r : ranks_) r->connect(bases);
}

EmulatedNode::~EmulatedNode() {
  // Let every rank finish before its workspace, streams and green contexts go away.
  cudaDeviceSynchronize();
}

std::string EmulatedNode::describe() const {
  return "emulated, " + std::to_string(nranks()) + " ranks x " + std::to_string(sms_per_rank()) +
         " SMs (green contexts) in one process on GPU " + std::to_string(options_.device);
}

long long EmulatedNode::token_capacity(int hidden, DType dtype) const {
  return ranks_[0]->workspace().token_capacity(hidden, dtype);
}

void EmulatedNode::reinitialize() {
  ARLAB_CUDA_CHECK(cudaDeviceSynchronize());
  for (auto& r : ranks_) r->workspace().initialize(format_.dtype(), r->stream());
  for (auto& r : ranks_) ARLAB_CUDA_CHECK_RANK(r->rank(), cudaStreamSynchronize(r->stream()));
}

void EmulatedNode::synchronize() {
  for (auto& r : ranks_)
    poll_until_done([&r] { return r->finished(); }, options_.timeout_ms,
                    "rank " + std::to_string(r->rank()) + " (emulated node, GPU " + std::to_string(options_.device) +
                        ")");
  std::vector<uint64_t> words;
  for (auto& r : ranks_) words.push_back(r->read_fault_word());
  raise_first_fault(words);
}

}  // namespace arlab::harness
