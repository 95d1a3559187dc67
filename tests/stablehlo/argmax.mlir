// argmax along dimension 1 and argmin along dimension 0 as StableHLO's two-operand reduce
// of (x, iota): the body keeps the first index of the extreme value, a NaN winning.
module @argmax {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3xi64>, tensor<5xi64>) {
    %iota1 = stablehlo.iota dim = 1 : tensor<3x5xi64>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %0:2 = "stablehlo.reduce"(%arg0, %iota1, %ninf, %zero) ({
    ^bb0(%a: tensor<f32>, %ai: tensor<i64>, %b: tensor<f32>, %bi: tensor<i64>):
      %an = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %bn = stablehlo.compare NE, %b, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nbn = stablehlo.not %bn : tensor<i1>
      %t1 = stablehlo.and %an, %nbn : tensor<i1>
      %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %bothn = stablehlo.and %an, %bn : tensor<i1>
      %same = stablehlo.or %eq, %bothn : tensor<i1>
      %lower = stablehlo.compare LT, %ai, %bi : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %t3 = stablehlo.and %same, %lower : tensor<i1>
      %t12 = stablehlo.or %t1, %gt : tensor<i1>
      %take = stablehlo.or %t12, %t3 : tensor<i1>
      %v = stablehlo.select %take, %a, %b : tensor<i1>, tensor<f32>
      %i = stablehlo.select %take, %ai, %bi : tensor<i1>, tensor<i64>
      stablehlo.return %v, %i : tensor<f32>, tensor<i64>
    }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<3x5xi64>, tensor<f32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xi64>)
    %iota0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3x5xi64>
    %pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1:2 = "stablehlo.reduce"(%arg0, %iota0, %pinf, %zero) ({
    ^bb0(%a: tensor<f32>, %ai: tensor<i64>, %b: tensor<f32>, %bi: tensor<i64>):
      %an = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %bn = stablehlo.compare NE, %b, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nbn = stablehlo.not %bn : tensor<i1>
      %t1 = stablehlo.and %an, %nbn : tensor<i1>
      %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %bothn = stablehlo.and %an, %bn : tensor<i1>
      %same = stablehlo.or %eq, %bothn : tensor<i1>
      %lower = stablehlo.compare LT, %ai, %bi : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %t3 = stablehlo.and %same, %lower : tensor<i1>
      %t12 = stablehlo.or %t1, %lt : tensor<i1>
      %take = stablehlo.or %t12, %t3 : tensor<i1>
      %v = stablehlo.select %take, %a, %b : tensor<i1>, tensor<f32>
      %i = stablehlo.select %take, %ai, %bi : tensor<i1>, tensor<i64>
      stablehlo.return %v, %i : tensor<f32>, tensor<i64>
    }) {dimensions = array<i64: 0>} : (tensor<3x5xf32>, tensor<3x5xi64>, tensor<f32>, tensor<i64>) -> (tensor<5xf32>, tensor<5xi64>)
    return %0#1, %1#1 : tensor<3xi64>, tensor<5xi64>
  }
}
