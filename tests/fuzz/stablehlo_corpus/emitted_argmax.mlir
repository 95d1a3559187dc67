module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xi32>) -> tensor<i64> {
    %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2xi64>
    %1 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %2 = stablehlo.constant dense<9223372036854775807> : tensor<i64>
    %3:2 = "stablehlo.reduce"(%arg0, %0, %1, %2) ({
      ^bb0(%4: tensor<i32>, %5: tensor<i64>, %6: tensor<i32>, %7: tensor<i64>):
        %8 = "stablehlo.compare"(%4, %6) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %9 = "stablehlo.compare"(%4, %6) {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %10 = "stablehlo.compare"(%5, %7) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %11 = "stablehlo.and"(%9, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %12 = "stablehlo.or"(%8, %11) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        %13 = "stablehlo.select"(%12, %4, %6) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
        %14 = "stablehlo.select"(%12, %5, %7) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%13, %14) : (tensor<i32>, tensor<i64>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<2xi64>, tensor<i32>, tensor<i64>) -> (tensor<i32>, tensor<i64>)
    return %3#1 : tensor<i64>
  }
}
