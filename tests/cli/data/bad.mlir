module @bad {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.mul %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
