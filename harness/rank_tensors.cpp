// Implementation of harness/rank_tensors.h.
#include "harness/rank_tensors.h"

#include <cstring>
#include <string>

#include "harness/check.h"

namespace arlab::harness {

size_t RankTensors::tensor_bytes() const {
  return static_cast<size_t>(shape_.tokens) * static_cast<size_t>(shape_.hidden) * dtype_bytes(shape_.dtype);
}

RankTensors::RankTensors(const Problem& shape, int nsets, int rank) : shape_(shape), nsets_(nsets), rank_(rank) {
  validate(shape);
  if (nsets < 1) throw InvalidArgument("input sets = " + std::to_string(nsets) + " must be >= 1");
  const size_t t = tensor_bytes();
  x_ = DeviceBuffer(t * static_cast<size_t>(nsets), rank);
  if (has_residual(shape.pattern)) {
    residual_ = DeviceBuffer(t * static_cast<size_t>(nsets), rank);
    gamma_ = DeviceBuffer(static_cast<size_t>(shape.hidden) * dtype_bytes(shape.dtype), rank);
    residual_out_ = DeviceBuffer(t, rank);
    sum_scratch_ = DeviceBuffer(t, rank);
  }
  scale_ = DeviceBuffer(sizeof(float), rank);
  if (has_allreduce_out(shape.pattern)) allreduce_out_ = DeviceBuffer(t, rank);
  if (has_norm_out(shape.pattern)) norm_out_ = DeviceBuffer(t, rank);
  if (has_quant(shape.pattern)) quant_out_ = DeviceBuffer(ref::quant_out_bytes(shape), rank);
  if (has_fp4(shape.pattern)) scale_out_ = DeviceBuffer(ref::scale_out_bytes(shape), rank);
}

const void* RankTensors::x(int set) const { return x_.as<char>() + static_cast<size_t>(set) * tensor_bytes(); }
const void* RankTensors::residual(int set) const {
  return residual_.data() ? residual_.as<char>() + static_cast<size_t>(set) * tensor_bytes() : nullptr;
}

void RankTensors::upload(const ref::FusedInputs& in, int set, float scale, cudaStream_t stream) {
  if (set < 0 || set >= nsets_)
    throw InvalidArgument("input set " + std::to_string(set) + " outside [0, " + std::to_string(nsets_) + ")");
  const ref::HostTensor& x = in.x.at(static_cast<size_t>(rank_));
  if (x.rows > shape_.tokens || x.cols != shape_.hidden || x.dtype != shape_.dtype)
    throw InvalidArgument("rank " + std::to_string(rank_) + " input x is [" + std::to_string(x.rows) + ", " +
                          std::to_string(x.cols) + "] " + to_string(x.dtype) + "; the tensors hold at most [" +
                          std::to_string(shape_.tokens) + ", " + std::to_string(shape_.hidden) + "] " +
                          to_string(shape_.dtype));
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(const_cast<void*>(this->x(set)), x.data(), x.size_bytes(),
                                               cudaMemcpyHostToDevice, stream));
  if (residual_.data()) {
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(const_cast<void*>(residual(set)), in.residual_in.data(),
                                                 in.residual_in.size_bytes(), cudaMemcpyHostToDevice, stream));
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(gamma_.data(), in.gamma.data(), in.gamma.size_bytes(),
                                                 cudaMemcpyHostToDevice, stream));
  }
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(scale_.data(), &scale, sizeof(float), cudaMemcpyHostToDevice, stream));
  // The host sources are pageable and `scale` is a local: wait until the copies have consumed them.
  ARLAB_CUDA_CHECK_RANK(rank_, cudaStreamSynchronize(stream));
}

std::vector<uint8_t> poisoned_scale_image(const Problem& p) {
  std::vector<uint8_t> image(ref::scale_out_bytes(p), 0);
  const int64_t blocks = p.hidden / kFp4BlockElems;
  for (size_t off = 0; off < image.size(); ++off) {
    const ref::SfPosition pos = ref::sf_position(p.sf_layout, static_cast<int64_t>(off), p.hidden);
    if (pos.token < p.tokens && pos.block < blocks) image[off] = kPoisonByte;
  }
  return image;
}

void RankTensors::poison_outputs(const Problem& p, cudaStream_t stream) {
  const size_t t = static_cast<size_t>(p.tokens) * static_cast<size_t>(p.hidden) * dtype_bytes(p.dtype);
  for (const DeviceBuffer* b : {&allreduce_out_, &residual_out_, &norm_out_})
    if (b->data()) ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(b->data(), kPoisonByte, t, stream));
  if (quant_out_.data())
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(quant_out_.data(), kPoisonByte, ref::quant_out_bytes(p), stream));
  if (scale_out_.data()) {
    const std::vector<uint8_t> image = poisoned_scale_image(p);
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(scale_out_.data(), image.data(), image.size(), cudaMemcpyHostToDevice,
                                                 stream));
    ARLAB_CUDA_CHECK_RANK(rank_, cudaStreamSynchronize(stream));  // `image` is a local
  }
}

ref::FusedOutputs RankTensors::download_outputs(const Problem& p, cudaStream_t stream) const {
  ARLAB_CUDA_CHECK_RANK(rank_, cudaStreamSynchronize(stream));
  ref::FusedOutputs out = ref::allocate_outputs(p);
  auto copy = [&](ref::HostTensor& dst, const DeviceBuffer& src) {
    if (dst.size_bytes() == 0) return;
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpy(dst.data(), src.data(), dst.size_bytes(), cudaMemcpyDeviceToHost));
  };
  copy(out.allreduce_out, allreduce_out_);
  copy(out.residual_out, residual_out_);
  copy(out.norm_out, norm_out_);
  if (!out.quant_out.empty())
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpy(out.quant_out.data(), quant_out_.data(), out.quant_out.size(),
                                            cudaMemcpyDeviceToHost));
  if (!out.scale_out.empty())
    ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpy(out.scale_out.data(), scale_out_.data(), out.scale_out.size(),
                                            cudaMemcpyDeviceToHost));
  return out;
}

ref::FusedInputs first_tokens(const ref::FusedInputs& in, int tokens) {
  auto rows = [tokens](const ref::HostTensor& t) {
    if (t.empty()) return t;
    if (tokens > t.rows)
      throw InvalidArgument("first_tokens: " + std::to_string(tokens) + " tokens requested from a tensor of " +
                            std::to_string(t.rows) + " rows");
    ref::HostTensor out = ref::HostTensor::make(t.dtype, tokens, t.cols);
    std::memcpy(out.data(), t.data(), out.size_bytes());
    return out;
  };
  ref::FusedInputs out;
  for (const ref::HostTensor& x : in.x) out.x.push_back(rows(x));
  out.residual_in = rows(in.residual_in);
  out.gamma = in.gamma;
  return out;
}

}  // namespace arlab::harness
