module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> tensor<3xi64> {
    %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xi64>
    return %0 : tensor<3xi64>
  }
}
