// reduce_window: a 2x2 max pool, strides [1, 2], padding (with the init value -inf) below
// on dimension 1 and above on dimension 0; a sum with base dilation 2 on dimension 0 and
// window dilation 2 on dimension 1; a min with stride 2.
module @reduce_window {
  func.func public @main(%arg0: tensor<4x5xf32>) -> (tensor<4x3xf32>, tensor<6x3xf32>, tensor<2x2xf32>) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %ninf) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x3xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<6x3xf32>
    %pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = "stablehlo.reduce_window"(%arg0, %pinf) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.minimum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<2x2xf32>
    return %0, %1, %2 : tensor<4x3xf32>, tensor<6x3xf32>, tensor<2x2xf32>
  }
}
