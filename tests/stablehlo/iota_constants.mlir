// iota (pretty and generic) and constants: decimal and hex f32 (one, -0, the smallest
// denormal), i1, i32 limits, an f64 splat as hex, bf16 hex patterns, MLIR's hex blob
// (little-endian bytes), the i64 minimum, an empty tensor.
module @iota_constants {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xi1>, tensor<2xi32>, tensor<2xf64>, tensor<2xbf16>, tensor<2xf32>, tensor<i64>, tensor<0x3xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.iota dim = 1 : tensor<2x3xf32>
    %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2x3xi32>
    %2 = stablehlo.constant dense<[[1.5, -2.0e-03, 0x3F800000], [0x80000000, 7.0, 0x00000001]]> : tensor<2x3xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<2x3xf32>
    %4 = stablehlo.add %0, %3 : tensor<2x3xf32>
    %5 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %6 = stablehlo.constant dense<[-2147483648, 2147483647]> : tensor<2xi32>
    %7 = stablehlo.constant dense<0x3FF8000000000000> : tensor<2xf64>
    %8 = stablehlo.constant dense<[0x3F80, 0xC000]> : tensor<2xbf16>
    %9 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %10 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %11 = stablehlo.constant dense<> : tensor<0x3xf32>
    return %4, %1, %5, %6, %7, %8, %9, %10, %11, %2 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xi1>, tensor<2xi32>, tensor<2xf64>, tensor<2xbf16>, tensor<2xf32>, tensor<i64>, tensor<0x3xf32>, tensor<2x3xf32>
  }
}
