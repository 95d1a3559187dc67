#include "src/ir/window.h"

namespace seam::ir {
namespace {

int64_t One(const Instruction& inst, const char* name) { return inst.attrs.at(name).at(0); }

}  // namespace

ConvolutionLayout ConvolutionLayoutOf(const Instruction& inst) {
  ConvolutionLayout c;
  c.input_batch = One(inst, "input_batch_dim");
  c.input_feature = One(inst, "input_feature_dim");
  c.input_spatial = inst.attrs.at("input_spatial_dims");
  c.kernel_input_feature = One(inst, "kernel_input_feature_dim");
  c.kernel_output_feature = One(inst, "kernel_output_feature_dim");
  c.kernel_spatial = inst.attrs.at("kernel_spatial_dims");
  c.output_batch = One(inst, "output_batch_dim");
  c.output_feature = One(inst, "output_feature_dim");
  c.output_spatial = inst.attrs.at("output_spatial_dims");
  c.feature_groups = One(inst, "feature_group_count");
  const std::vector<int64_t>& strides = inst.attrs.at("window_strides");
  const std::vector<int64_t>& low = inst.attrs.at("padding_low");
  const std::vector<int64_t>& high = inst.attrs.at("padding_high");
  const std::vector<int64_t>& lhs_dilation = inst.attrs.at("lhs_dilation");
  const std::vector<int64_t>& rhs_dilation = inst.attrs.at("rhs_dilation");
  for (size_t i = 0; i < c.input_spatial.size(); ++i) {
    WindowDim w;
    w.stride = strides[i];
    w.pad_low = low[i];
    w.pad_high = high[i];
    w.base_dilation = lhs_dilation[i];
    w.window_dilation = rhs_dilation[i];
    c.window.push_back(w);
  }
  return c;
}

std::vector<WindowDim> WindowOf(const Instruction& inst) {
  const std::vector<int64_t>& sizes = inst.attrs.at("window_dimensions");
  const std::vector<int64_t>& strides = inst.attrs.at("window_strides");
  const std::vector<int64_t>& low = inst.attrs.at("padding_low");
  const std::vector<int64_t>& high = inst.attrs.at("padding_high");
  auto base = inst.attrs.find("base_dilation");
  auto window = inst.attrs.find("window_dilation");
  std::vector<WindowDim> dims(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    dims[i].size = sizes[i];
    dims[i].stride = strides[i];
    dims[i].pad_low = low[i];
    dims[i].pad_high = high[i];
    if (base != inst.attrs.end()) dims[i].base_dilation = base->second[i];
    if (window != inst.attrs.end()) dims[i].window_dilation = window->second[i];
  }
  return dims;
}

}  // namespace seam::ir
