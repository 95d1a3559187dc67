// select_and_scatter (max pooling's gradient): windows 2x3 with strides 2x3; then windows
// 2x2 with stride 2 and one row of padding above.
module @select_and_scatter {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<3x4xf32>) -> (tensor<4x6xf32>, tensor<3x4xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %ge : tensor<i1>
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>} : (tensor<4x6xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x6xf32>
    %1 = "stablehlo.select_and_scatter"(%arg2, %arg1, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %ge = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%ge) : (tensor<i1>) -> ()
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %b, %a : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<3x4xf32>
    return %0, %1 : tensor<4x6xf32>, tensor<3x4xf32>
  }
}
