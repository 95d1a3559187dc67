// argsort as a stable two-operand sort of (x, iota): the comparator canonicalises (-0 to
// +0, every NaN to the positive quiet NaN) and compares with TOTALORDER, so NaN sorts above
// +inf, -0 ties +0, and ties keep their order. Ascending along dimension 1 of a constant
// full of ties and special values; descending along dimension 0 of an argument.
module @argsort {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<2x6xi64>, tensor<3x4xi64>) {
    %x = stablehlo.constant dense<[[1.0, 0x7FC00000, -0.0, 0.0, 1.0, 0xFF800000], [0xFFC00000, 2.0, 0x7F800000, -1.0, 2.0, 0x7FC00000]]> : tensor<2x6xf32>
    %iota = stablehlo.iota dim = 1 : tensor<2x6xi64>
    %0:2 = "stablehlo.sort"(%x, %iota) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %ai: tensor<i64>, %bi: tensor<i64>):
      %zero = stablehlo.constant dense<0x00000000> : tensor<f32>
      %qnan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %az = stablehlo.compare EQ, %a, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a1 = stablehlo.select %az, %zero, %a : tensor<i1>, tensor<f32>
      %an = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a2 = stablehlo.select %an, %qnan, %a1 : tensor<i1>, tensor<f32>
      %bz = stablehlo.compare EQ, %b, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b1 = stablehlo.select %bz, %zero, %b : tensor<i1>, tensor<f32>
      %bn = stablehlo.compare NE, %b, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b2 = stablehlo.select %bn, %qnan, %b1 : tensor<i1>, tensor<f32>
      %lt = stablehlo.compare LT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<2x6xf32>, tensor<2x6xi64>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
    %iota0 = stablehlo.iota dim = 0 : tensor<3x4xi64>
    %1:2 = "stablehlo.sort"(%arg0, %iota0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %ai: tensor<i64>, %bi: tensor<i64>):
      %zero = stablehlo.constant dense<0x00000000> : tensor<f32>
      %qnan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %az = stablehlo.compare EQ, %a, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a1 = stablehlo.select %az, %zero, %a : tensor<i1>, tensor<f32>
      %an = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a2 = stablehlo.select %an, %qnan, %a1 : tensor<i1>, tensor<f32>
      %bz = stablehlo.compare EQ, %b, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b1 = stablehlo.select %bz, %zero, %b : tensor<i1>, tensor<f32>
      %bn = stablehlo.compare NE, %b, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b2 = stablehlo.select %bn, %qnan, %b1 : tensor<i1>, tensor<f32>
      %gt = stablehlo.compare GT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %gt : tensor<i1>
    }) {dimension = 0 : i64, is_stable = true} : (tensor<3x4xf32>, tensor<3x4xi64>) -> (tensor<3x4xf32>, tensor<3x4xi64>)
    return %0#1, %1#1 : tensor<2x6xi64>, tensor<3x4xi64>
  }
}
