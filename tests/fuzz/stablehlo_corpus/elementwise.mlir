// Elementwise float ops, pretty and generic forms mixed (StableHLO spec: add, subtract,
// multiply, divide, remainder, power, maximum, minimum, negate, abs, sign, exponential,
// log, log_plus_one, tanh, logistic, sqrt, rsqrt, floor, ceil; chlo.erf).
module @elementwise {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    %1 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<2x3xf32>
    %3 = "stablehlo.divide"(%2, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<2x3xf32>
    %5 = stablehlo.maximum %3, %4 : tensor<2x3xf32>
    %6 = "stablehlo.minimum"(%5, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = stablehlo.negate %6 : tensor<2x3xf32>
    %8 = stablehlo.abs %7 : tensor<2x3xf32>
    %9 = stablehlo.sign %arg1 : tensor<2x3xf32>
    %10 = stablehlo.exponential %arg0 : tensor<2x3xf32>
    %11 = stablehlo.log %10 : tensor<2x3xf32>
    %12 = stablehlo.log_plus_one %8 : tensor<2x3xf32>
    %13 = stablehlo.tanh %12 : tensor<2x3xf32>
    %14 = "stablehlo.logistic"(%arg1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %15 = stablehlo.sqrt %8 : tensor<2x3xf32>
    %16 = stablehlo.rsqrt %10 : tensor<2x3xf32>
    %17 = stablehlo.floor %arg0 : tensor<2x3xf32>
    %18 = stablehlo.ceil %arg1 : tensor<2x3xf32>
    %19 = "chlo.erf"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %20 = stablehlo.power %8, %arg1 : tensor<2x3xf32>
    %21 = stablehlo.add %13, %14 : tensor<2x3xf32>
    %22 = stablehlo.subtract %15, %16 : tensor<2x3xf32>
    %23 = stablehlo.multiply %17, %18 : tensor<2x3xf32>
    return %5, %21, %22, %23, %19, %20, %9, %11 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
