// The other element types: bf16 and f64 arithmetic, an f64 product, i64 and i1 data
// movement, converts between them.
module @dtypes {
  func.func public @main(%arg0: tensor<2x3xbf16>, %arg1: tensor<3x2xf64>, %arg2: tensor<2x3xi64>, %arg3: tensor<2x3xi1>) -> (tensor<2x3xbf16>, tensor<2x2xf64>, tensor<3x2xi64>, tensor<2x2xi1>, tensor<2x3xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x3xbf16>
    %1 = stablehlo.subtract %0, %arg0 : tensor<2x3xbf16>
    %2 = stablehlo.convert %1 : (tensor<2x3xbf16>) -> tensor<2x3xf64>
    %3 = "stablehlo.dot_general"(%2, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
    %4 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<2x3xi64>) -> tensor<3x2xi64>
    %5 = stablehlo.negate %4 : tensor<3x2xi64>
    %6 = "stablehlo.slice"(%arg3) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>} : (tensor<2x3xi1>) -> tensor<2x2xi1>
    %7 = stablehlo.not %6 : tensor<2x2xi1>
    %8 = stablehlo.convert %2 : (tensor<2x3xf64>) -> tensor<2x3xf32>
    return %1, %3, %5, %7, %8 : tensor<2x3xbf16>, tensor<2x2xf64>, tensor<3x2xi64>, tensor<2x2xi1>, tensor<2x3xf32>
  }
}
