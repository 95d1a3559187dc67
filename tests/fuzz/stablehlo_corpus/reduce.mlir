// reduce over two non-adjacent dimensions, the pretty form, multiply and minimum bodies
// (written with the arguments swapped), and an init value that is not the identity.
module @reduce {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4xi32>) -> (tensor<3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<3xi32>, tensor<2x4xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce"(%arg0, %zero) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %2 = "stablehlo.reduce"(%arg1, %one) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %p = stablehlo.multiply %b, %a : tensor<i32>
      stablehlo.return %p : tensor<i32>
    }) {dimensions = array<i64: 0>} : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
    %big = stablehlo.constant dense<2147483647> : tensor<i32>
    %3 = stablehlo.reduce(%arg1 init: %big) applies stablehlo.minimum across dimensions = [1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    %init = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.add across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<3xi32>, tensor<2x4xf32>
  }
}
