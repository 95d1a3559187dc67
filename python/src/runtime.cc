// The step barrier, compiled steps, metrics, traces, checkpoints, data sets and the process's
// place in a job. Every call that waits on seam (sync, device waits, compiles, file and
// device reads) releases the GIL, so other Python threads run meanwhile.
#include "seam/runtime.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"
#include "seam/checkpoint.h"
#include "seam/compile.h"
#include "seam/data.h"
#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/trace.h"

namespace seam::python {
namespace {

template <typename T>
py::array OwnedArray(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::move(shape), owned->data(), owner);
}

std::vector<Tensor> StepOutputs(py::handle result) {
  std::vector<Tensor> out;
  if (result.is_none()) return out;
  if (py::isinstance<PyTensor>(result)) {
    out.push_back(result.cast<const PyTensor&>().value);
    return out;
  }
  if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    for (py::handle item : result) {
      if (!py::isinstance<PyTensor>(item)) {
        ThrowInvalid("compile: the step function returned a " +
                     py::str(item.get_type()).cast<std::string>() +
                     " among its outputs; return tensors (a tensor, a tuple or a list of them)");
      }
      out.push_back(item.cast<const PyTensor&>().value);
    }
    return out;
  }
  ThrowInvalid("compile: the step function returned a " +
               py::str(result.get_type()).cast<std::string>() +
               "; return a tensor, a tuple or a list of tensors, or None");
}

// A seam::CompiledStep over a Python function. The function is held through a shared
// pointer so copies of the std::function never touch Python reference counts without the
// GIL.
class PyCompiledStep {
 public:
  explicit PyCompiledStep(py::function fn)
      : fn_(std::make_shared<py::function>(std::move(fn))), step_(MakeStep(fn_)) {}
  ~PyCompiledStep() = default;

  std::vector<PyTensorPtr> Call(const std::vector<PyTensorPtr>& inputs) {
    std::vector<Tensor> values;
    for (const PyTensorPtr& t : inputs) {
      if (t == nullptr) ThrowInvalid("compile: None among the inputs");
      values.push_back(t->value);
    }
    std::vector<PyTensorPtr> result;
    for (Tensor& t : Run(values)) result.push_back(Constant(std::move(t)));
    return result;
  }
  // The step on `values`, the GIL released while it runs.
  std::vector<Tensor> Run(const std::vector<Tensor>& values) {
    py::gil_scoped_release release;
    return step_(values);
  }
  CompiledStep& step() { return step_; }

 private:
  static CompiledStep MakeStep(std::shared_ptr<py::function> fn) {
    return CompiledStep([fn](const std::vector<Tensor>& inputs) {
      py::gil_scoped_acquire gil;
      py::tuple args(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(Constant(inputs[i]));
      py::object result = (*fn)(*args);
      return StepOutputs(result);
    });
  }
  std::shared_ptr<py::function> fn_;
  CompiledStep step_;
};

// CompiledStep.__call__(inputs) as a direct entry point (fast_calls.cc says why): a tuple
// of seam tensors in, a list of them out; any other call goes to the binding.
const py::detail::type_info* g_compiled_info = nullptr;
PyObject* g_compiled_call = nullptr;

PyObject* FastCompiledCall(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                           PyObject* kwnames) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  py::detail::type_caster_generic caster(g_compiled_info);
  if (kwnames == nullptr && n == 1 && PyTuple_Check(args[0]) && caster.load(self, false)) {
    PyObject* inputs = args[0];
    std::vector<Tensor> values;
    values.reserve(static_cast<size_t>(PyTuple_GET_SIZE(inputs)));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); ++i) {
      const PyTensor* t = FastTensor(PyTuple_GET_ITEM(inputs, i));
      if (t == nullptr) break;
      values.push_back(t->value);
    }
    if (static_cast<Py_ssize_t>(values.size()) == PyTuple_GET_SIZE(inputs)) {
      std::vector<Tensor> outs;
      try {
        outs = static_cast<PyCompiledStep*>(caster.value)->Run(values);
      } catch (...) {
        return RaiseTranslated();
      }
      py::list result(outs.size());
      for (size_t i = 0; i < outs.size(); ++i) {
        PyObject* item = WrapTensor(Constant(std::move(outs[i])));
        if (item == nullptr) return nullptr;
        PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(i), item);
      }
      return result.release().ptr();
    }
  }
  return CallReplaced(g_compiled_call, self, args, static_cast<size_t>(n), kwnames);
}

PyMethodDef g_compiled_def = {
    "__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&FastCompiledCall)),
    METH_FASTCALL | METH_KEYWORDS, nullptr};

void BindMetricsAndTrace(py::module_& m) {
  py::module_ metrics = m.def_submodule("metrics", "seam::metrics");
  metrics.def(
      "report",
      [](bool server) {
        py::gil_scoped_release release;
        metrics::ReportOptions options;
        options.server = server;
        return metrics::CreateMetricReport(options);
      },
      py::arg("server") = false);
  metrics.def("counter_value", [](const std::string& name) { return metrics::CounterValue(name); });
  metrics.def("metric_total_samples",
              [](const std::string& name) { return metrics::MetricTotalSamples(name); });
  metrics.def("metric_accumulator",
              [](const std::string& name) { return metrics::MetricAccumulator(name); });

  py::module_ trace = m.def_submodule("trace", "seam::trace");
  trace.def("start", [](const std::string& path) { trace::start(path); });
  trace.def("stop", [] {
    py::gil_scoped_release release;
    trace::stop();
  });
  trace.def("active", [] { return trace::active(); });
}

void BindFiles(py::module_& m) {
  m.def(
      "save_file",
      [](const std::string& path, const std::map<std::string, PyTensorPtr>& tensors,
         const std::map<std::string, std::string>& metadata) {
        std::map<std::string, Tensor> values;
        for (const auto& [name, t] : tensors) {
          if (t == nullptr) ThrowInvalid("save_file: tensor '" + name + "' is None");
          values.emplace(name, t->value);
        }
        py::gil_scoped_release release;
        checkpoint::save_file(path, values, metadata);
      },
      py::arg("path"), py::arg("tensors"),
      py::arg("metadata") = std::map<std::string, std::string>());
  m.def("load_file", [](const std::string& path) {
    checkpoint::Loaded loaded;
    {
      py::gil_scoped_release release;
      loaded = checkpoint::load_file(path);
    }
    py::dict tensors;
    for (auto& [name, t] : loaded.tensors) tensors[py::str(name)] = Constant(t);
    return py::make_tuple(tensors, loaded.metadata);
  });
  m.def(
      "fashion_mnist",
      [](bool train, const std::string& dir) {
        data::ImageSet set;
        {
          py::gil_scoped_release release;
          set = data::load_fashion_mnist(train, dir);
        }
        py::array images = OwnedArray(std::move(set.images), {set.count, set.rows * set.cols});
        py::array labels = OwnedArray(std::move(set.labels), {set.count});
        return py::make_tuple(images, labels);
      },
      py::arg("train") = true, py::arg("dir") = std::string(data::kFashionMnistDir));
  // seam.data.Shuffler: a std::mt19937_64 whose epochs' orders come from
  // data::shuffled_order, the C++ examples' shuffle.
  py::class_<std::mt19937_64>(m, "Shuffler", py::module_local())
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def(
          "permutation",
          [](std::mt19937_64& rng, int64_t count) {
            std::vector<int64_t> order = data::shuffled_order(count, rng);
            return OwnedArray(std::move(order), {count});
          },
          py::arg("count"));
}

}  // namespace

void InstallFastCompiledCall() {
  g_compiled_info = py::detail::get_type_info(typeid(PyCompiledStep));
  if (g_compiled_info != nullptr)
    ReplaceMethod(g_compiled_info->type, g_compiled_def, &g_compiled_call);
}

void BindRuntime(py::module_& m) {
  m.def(
      "sync",
      [] {
        py::gil_scoped_release release;
        sync();
      },
      "Compiles and runs every live tensor's pending operations as one program (torch_xla's "
      "xm.mark_step()). The GIL is released while it runs.");
  m.def("wait_device_ops", [] {
    py::gil_scoped_release release;
    wait_device_ops();
  });
  m.def("set_eager", &set_eager);
  m.def("is_eager", &is_eager);
  m.def("pending_ir_text", [](const std::vector<PyTensorPtr>& tensors) {
    std::vector<Tensor> values;
    for (const PyTensorPtr& t : tensors) values.push_back(t->value);
    return pending_ir_text(values);
  });
  m.def("process_index", [] {
    py::gil_scoped_release release;
    return process_index();
  });
  m.def("process_count", [] {
    py::gil_scoped_release release;
    return process_count();
  });
  m.def("local_device_count", [] {
    py::gil_scoped_release release;
    return local_device_count();
  });
  m.def("memory_stats", [](int device) {
    MemoryStats s = memory_stats(device);
    py::dict out;
    out["bytes_in_use"] = s.bytes_in_use;
    out["peak_bytes_in_use"] = s.peak_bytes_in_use;
    out["bytes_limit"] = s.bytes_limit;
    out["pool_cached_bytes"] = s.pool_cached_bytes;
    return out;
  });
  py::class_<PyCompiledStep>(m, "CompiledStep")
      .def(py::init<py::function>())
      .def("__call__", &PyCompiledStep::Call)
      .def_property_readonly("traced_calls",
                             [](PyCompiledStep& s) { return s.step().traced_calls(); })
      .def_property_readonly("replayed_calls",
                             [](PyCompiledStep& s) { return s.step().replayed_calls(); })
      .def_property_readonly("fallbacks", [](PyCompiledStep& s) { return s.step().fallbacks(); })
      .def_property_readonly("never_replayed",
                             [](PyCompiledStep& s) { return s.step().never_replayed(); })
      .def_property_readonly("last_reason",
                             [](PyCompiledStep& s) { return s.step().last_reason(); });
  BindMetricsAndTrace(m);
  BindFiles(m);
}

}  // namespace seam::python
