// Random bits: the state is the key and the two counter words as ui64[3] (a bitcast of
// i64[3]); result #1 holds the bits (seam's CPU plugin maps it to seam's generator, so the
// bits equal seam IR's rng_bit_generator for the same key and counter).
module @rng {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<2xi64>) -> (tensor<2x3xi32>, tensor<5xi64>) {
    %0 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
    %1 = "stablehlo.concatenate"(%0, %arg1) {dimension = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
    %2 = "stablehlo.bitcast_convert"(%1) : (tensor<3xi64>) -> tensor<3xui64>
    %3:2 = "stablehlo.rng_bit_generator"(%2) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x3xi32>)
    %4:2 = "stablehlo.rng_bit_generator"(%2) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5xi64>)
    return %3#1, %4#1 : tensor<2x3xi32>, tensor<5xi64>
  }
}
