// compare (pretty and generic, each direction), select, clamp (min, x, max operand order),
// convert between f32, i32, bf16, f64 and i1.
module @compare_select {
  func.func public @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x4xbf16>, tensor<2x4xi1>, tensor<2x4xf64>, tensor<2x4xi1>) {
    %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %1 = "stablehlo.select"(%0, %arg1, %arg0) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.clamp %arg1, %arg0, %1 : tensor<2x4xf32>
    %3 = stablehlo.convert %arg0 : (tensor<2x4xf32>) -> tensor<2x4xi32>
    %4 = "stablehlo.compare"(%3, %arg2) {comparison_direction = #stablehlo<comparison_direction LE>} : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %5 = "stablehlo.compare"(%3, %arg2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %6 = stablehlo.compare EQ, %4, %5 : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
    %7 = stablehlo.select %6, %3, %arg2 : tensor<2x4xi1>, tensor<2x4xi32>
    %8 = stablehlo.convert %arg1 : (tensor<2x4xf32>) -> tensor<2x4xbf16>
    %9 = stablehlo.convert %arg2 : (tensor<2x4xi32>) -> tensor<2x4xi1>
    %10 = stablehlo.convert %7 : (tensor<2x4xi32>) -> tensor<2x4xf64>
    %11 = stablehlo.compare LT, %arg0, %arg1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %12 = stablehlo.compare GE, %arg0, %arg1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %13 = stablehlo.and %11, %12 : tensor<2x4xi1>
    return %1, %2, %7, %8, %9, %10, %13 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x4xbf16>, tensor<2x4xi1>, tensor<2x4xf64>, tensor<2x4xi1>
  }
}
