// Output sizes and the NVFP4 scale-factor layouts (docs/operation.md): which outputs a pattern writes, how
// many bytes each takes, and where the scale factor of (token, 16-block) lives.
#include <string>

#include "reference/fused_reference.h"

namespace arlab::ref {

namespace {
// The swizzled layout tiles scale factors in 128 rows x 4 columns (of 16-blocks) = 512 bytes; rows
// within a tile are interleaved 32 at a time (docs/operation.md formula; the layout tensor cores read).
constexpr int64_t kSwizzleRows = 128;
constexpr int64_t kSwizzleCols = 4;
constexpr int64_t kSwizzleTileBytes = kSwizzleRows * kSwizzleCols;
constexpr int64_t kSwizzleRowGroup = 32;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
}  // namespace

size_t quant_out_bytes(const Problem& p) {
  const auto elems = static_cast<size_t>(p.tokens) * static_cast<size_t>(p.hidden);
  if (has_fp8(p.pattern)) return elems;  // one e4m3 code per element
  if (has_fp4(p.pattern)) return elems / 2;  // two e2m1 codes per byte
  return 0;
}

size_t scale_out_bytes(const Problem& p) {
  if (!has_fp4(p.pattern)) return 0;
  const int64_t blocks = p.hidden / kFp4BlockElems;
  if (p.sf_layout == ScaleLayout::linear) return static_cast<size_t>(p.tokens * blocks);
  return static_cast<size_t>(round_up(p.tokens, kSwizzleRows) * round_up(blocks, kSwizzleCols));
}

int64_t sf_offset(ScaleLayout layout, int64_t token, int64_t block, int64_t hidden) {
  if (hidden < kFp4BlockElems || hidden % kFp4BlockElems != 0)
    throw InvalidArgument("sf_offset: hidden = " + std::to_string(hidden) + " is not a positive multiple of 16");
  const int64_t blocks = hidden / kFp4BlockElems;
  if (token < 0) throw InvalidArgument("sf_offset: token = " + std::to_string(token) + " must be >= 0");
  if (block < 0 || block >= blocks)
    throw InvalidArgument("sf_offset: block = " + std::to_string(block) + " outside [0, " + std::to_string(blocks) +
                          ") for hidden = " + std::to_string(hidden));
  if (layout == ScaleLayout::linear) return token * blocks + block;
  const int64_t col_tiles = (blocks + kSwizzleCols - 1) / kSwizzleCols;  // ceil(H / 64)
  return (token / kSwizzleRows) * (col_tiles * kSwizzleTileBytes) + (block / kSwizzleCols) * kSwizzleTileBytes +
         (token % kSwizzleRowGroup) * (kSwizzleCols * (kSwizzleRows / kSwizzleRowGroup)) +
         ((token % kSwizzleRows) / kSwizzleRowGroup) * kSwizzleCols + (block % kSwizzleCols);
}

SfPosition sf_position(ScaleLayout layout, int64_t offset, int64_t hidden) {
  if (hidden < kFp4BlockElems || hidden % kFp4BlockElems != 0)
    throw InvalidArgument("sf_position: hidden = " + std::to_string(hidden) + " is not a positive multiple of 16");
  if (offset < 0) throw InvalidArgument("sf_position: offset = " + std::to_string(offset) + " must be >= 0");
  const int64_t blocks = hidden / kFp4BlockElems;
  if (layout == ScaleLayout::linear) return {offset / blocks, offset % blocks};
  const int64_t col_tiles = (blocks + kSwizzleCols - 1) / kSwizzleCols;
  const int64_t row_tile = offset / (col_tiles * kSwizzleTileBytes);
  const int64_t col_tile = offset % (col_tiles * kSwizzleTileBytes) / kSwizzleTileBytes;
  const int64_t in_tile = offset % kSwizzleTileBytes;
  const int64_t row_in_group = in_tile / (kSwizzleCols * (kSwizzleRows / kSwizzleRowGroup));
  const int64_t group = in_tile % (kSwizzleCols * (kSwizzleRows / kSwizzleRowGroup)) / kSwizzleCols;
  return {row_tile * kSwizzleRows + group * kSwizzleRowGroup + row_in_group,
          col_tile * kSwizzleCols + in_tile % kSwizzleCols};
}

FusedOutputs allocate_outputs(const Problem& p) {
  validate(p);
  FusedOutputs out;
  if (has_allreduce_out(p.pattern)) out.allreduce_out = HostTensor::make(p.dtype, p.tokens, p.hidden);
  if (has_residual(p.pattern)) out.residual_out = HostTensor::make(p.dtype, p.tokens, p.hidden);
  if (has_norm_out(p.pattern)) out.norm_out = HostTensor::make(p.dtype, p.tokens, p.hidden);
  out.quant_out.assign(quant_out_bytes(p), 0);
  out.scale_out.assign(scale_out_bytes(p), 0);
  return out;
}

}  // namespace arlab::ref
