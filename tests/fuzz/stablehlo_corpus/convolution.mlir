// convolution on NHWC input with an HWIO kernel: strides 2, asymmetric padding, rhs
// dilation 2 along H, two feature groups. Then the raw dimension-numbers form on NCHW/OIHW
// with lhs dilation.
module @convolution {
  func.func public @main(%arg0: tensor<1x5x5x4xf32>, %arg1: tensor<2x2x2x4xf32>, %arg2: tensor<1x2x3x3xf32>, %arg3: tensor<3x2x2x2xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x4x4x3xf32>) {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 2, 1>, window_strides = array<i64: 2, 2>} : (tensor<1x5x5x4xf32>, tensor<2x2x2x4xf32>) -> tensor<1x2x3x4xf32>
    %1 = "stablehlo.convolution"(%arg2, %arg3) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, lhs_dilation = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<3x2x2x2xf32>) -> tensor<1x4x4x3xf32>
    return %0, %1 : tensor<1x2x3x4xf32>, tensor<1x4x4x3xf32>
  }
}
