// Running sums as reduce_window: a window as long as the axis, padded below by n - 1, so
// output k sums inputs 0..k (f32 along dimension 1, i32 along dimension 0).
module @cumsum {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x2xi32>) -> (tensor<3x4xf32>, tensor<3x2xi32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 1, 4>, padding = dense<[[0, 0], [3, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %izero = stablehlo.constant dense<0> : tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg1, %izero) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 1, 1>, padding = dense<[[2, 0], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi32>, tensor<i32>) -> tensor<3x2xi32>
    return %0, %1 : tensor<3x4xf32>, tensor<3x2xi32>
  }
}
