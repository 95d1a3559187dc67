// Data parallelism (include/seam/distributed.h): DataParallel's shards, means and gathers,
// and all_reduce, as torch_xla users know them.
#include "seam/distributed.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

template <typename T>
Tensor Shard(const DataParallel& dp, const py::array& a) {
  auto typed = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<T> values(typed.data(), typed.data() + typed.size());
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  py::gil_scoped_release release;
  return dp.shard(values, std::move(shape));
}

template <typename T>
py::list Gather(const DataParallel& dp, const Tensor& t) {
  std::vector<std::vector<T>> parts;
  {
    py::gil_scoped_release release;
    parts = dp.gather<T>(t);
  }
  py::list out;
  for (std::vector<T>& p : parts) {
    py::array_t<T> a(static_cast<py::ssize_t>(p.size()));
    std::copy(p.begin(), p.end(), a.mutable_data());
    out.append(a.attr("reshape")(py::cast(t.shape())));
  }
  return out;
}

}  // namespace

void BindDistributed(py::module_& m) {
  py::enum_<ReduceOp>(m, "ReduceOp")
      .value("SUM", ReduceOp::kSum)
      .value("MAX", ReduceOp::kMax)
      .value("MIN", ReduceOp::kMin);
  m.def(
      "all_reduce",
      [](const PyTensor& t, ReduceOp op) { return Result(all_reduce(t.value, op), {&t}); },
      py::arg("tensor"), py::arg("op") = ReduceOp::kSum);
  py::class_<DataParallel>(m, "DataParallel")
      .def(py::init([](int64_t replicas) {
             py::gil_scoped_release release;  // may start the client (and wait for a job)
             return DataParallel(replicas);
           }),
           py::arg("replicas") = 0)
      .def_property_readonly("replicas", &DataParallel::replicas)
      .def_property_readonly("local_replicas", &DataParallel::local_replicas)
      .def_property_readonly("first_replica", &DataParallel::first_replica)
      .def("shard",
           [](const DataParallel& dp, const py::array& a) {
             const char kind = a.dtype().kind();
             if (kind == 'f' && a.itemsize() == 8) return Constant(Shard<double>(dp, a));
             if (kind == 'f') return Constant(Shard<float>(dp, a));
             if (kind == 'i' || kind == 'u') return Constant(Shard<int32_t>(dp, a));
             ThrowInvalid("DataParallel.shard: NumPy dtype " +
                          py::str(a.dtype()).cast<std::string>() +
                          " is not float32, float64 or an integer type");
           })
      .def("mean",
           [](const DataParallel& dp, const PyTensor& t) { return Result(dp.mean(t.value), {&t}); })
      .def("gather", [](const DataParallel& dp, const PyTensor& t) {
        switch (t.value.dtype()) {
          case DType::kFloat32:
            return Gather<float>(dp, t.value);
          case DType::kFloat64:
            return Gather<double>(dp, t.value);
          case DType::kInt32:
            return Gather<int32_t>(dp, t.value);
          default:
            ThrowInvalid(std::string("DataParallel.gather: ") + dtype_name(t.value.dtype()) +
                         " is not float32, float64 or int32");
        }
      });
}

}  // namespace seam::python
