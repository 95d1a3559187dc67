// Integer and logical elementwise ops: i32 divide/remainder (truncating), i64 arithmetic,
// and/or/not on i1 and i32.
module @integer_logical {
  func.func public @main(%arg0: tensor<6xi32>, %arg1: tensor<6xi32>, %arg2: tensor<6xi1>, %arg3: tensor<6xi64>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xi64>, tensor<6xi32>) {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<6xi32>
    %1 = "stablehlo.remainder"(%arg0, %arg1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
    %2 = stablehlo.not %arg2 : tensor<6xi1>
    %3 = "stablehlo.and"(%2, %arg2) : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
    %4 = stablehlo.or %3, %2 : tensor<6xi1>
    %5 = stablehlo.multiply %arg3, %arg3 : tensor<6xi64>
    %6 = stablehlo.subtract %5, %arg3 : tensor<6xi64>
    %7 = stablehlo.and %arg0, %arg1 : tensor<6xi32>
    %8 = stablehlo.not %7 : tensor<6xi32>
    %9 = stablehlo.or %8, %arg1 : tensor<6xi32>
    %10 = stablehlo.power %arg0, %arg1 : tensor<6xi32>
    %11 = stablehlo.add %9, %10 : tensor<6xi32>
    return %0, %1, %4, %6, %11 : tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xi64>, tensor<6xi32>
  }
}
