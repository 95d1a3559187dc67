module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xi32>, %arg1: tensor<i32>) -> tensor<1xi32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [0], start_index_map = [0], index_vector_dim = 0>, slice_sizes = array<i64: 1>} : (tensor<2xi32>, tensor<i32>) -> tensor<1xi32>
    return %0 : tensor<1xi32>
  }
}
