module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1xi64>) -> tensor<1xi64> {
    %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<1xi64>
    %1:2 = "stablehlo.sort"(%arg0, %0) ({
      ^bb0(%2: tensor<i64>, %3: tensor<i64>, %4: tensor<i64>, %5: tensor<i64>):
        %6 = "stablehlo.compare"(%2, %3) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = true} : (tensor<1xi64>, tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>)
    return %1#1 : tensor<1xi64>
  }
}
