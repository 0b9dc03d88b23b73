// Bindings for the count layer (assay.models and assay.count wrap them). Models and specs are
// opaque handles; results travel as the JSON text of report/count.hpp (exact counts as decimal
// strings, turned into Python ints by assay.count). The GIL is released while counting.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "assay/core/input_files.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/progress.hpp"
#include "assay/count/cnf.hpp"
#include "assay/count/count_cnf.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/domain_split.hpp"
#include "assay/count/encode.hpp"
#include "assay/count/instances.hpp"
#include "assay/count/model.hpp"
#include "assay/count/onnx.hpp"
#include "assay/count/spec.hpp"
#include "assay/count/vnnlib.hpp"
#include "assay/report/count.hpp"
#include "assay/report/count_instances.hpp"
#include "assay/report/count_networks.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

// A count, size or seed argument: refused with its name when negative (or above 2^64 - 1),
// where a plain conversion to an unsigned type would fail without naming it.
std::uint64_t non_negative(const py::handle& value, const char* name) {
  const py::int_ i(py::reinterpret_borrow<py::object>(value));
  if (PyObject_RichCompareBool(i.ptr(), py::int_(0).ptr(), Py_LT) == 1) {
    fail("{} must be >= 0, found {}", name, py::repr(i).cast<std::string>());
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(i.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    fail("{} must be at most {}, found {}", name, UINT64_MAX, py::repr(i).cast<std::string>());
  }
  return v;
}

std::vector<std::size_t> sample_sizes(const py::iterable& samples) {
  std::vector<std::size_t> out;
  for (const auto& n : samples) out.push_back(non_negative(n, "samples"));
  return out;
}

// Runs a long count with the GIL released. Ctrl-C stops it cleanly: the count's checkpoints
// (waves of boxes, blocks of samples, chunks of points) poll Python's signal handlers from this
// thread (PyErr_CheckSignals runs them on the main thread only) every 50 ms, the count returns or
// throws Interrupted, and the KeyboardInterrupt (or whatever the handler raised) is raised here.
// `progress`: reported to the installed sink (assay._progress draws it), else to none.
template <class Work>
auto run_interruptible(bool progress, Work work) {
  struct Caught {
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  } caught;
  const ProgressScope progress_scope(progress);
  decltype(work()) result{};
  bool interrupted = false;
  {
    const InterruptScope scope([&caught] {
      const py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() == 0) return false;
      if (caught.type == nullptr) {
        PyErr_Fetch(&caught.type, &caught.value, &caught.traceback);
      } else {
        PyErr_Clear();
      }
      return true;
    });
    try {
      const WithoutGil without_gil;
      result = work();
    } catch (const Interrupted&) {
      interrupted = true;
    } catch (...) {
      if (caught.type == nullptr) throw;  // else the handler's exception wins, below
    }
  }
  if (caught.type != nullptr) {
    PyErr_Restore(caught.type, caught.value, caught.traceback);
    throw py::error_already_set();
  }
  if (interrupted) {  // a stop requested without a Python exception (no handler raised)
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return result;
}

// max_memory in MB (as the CLI's --max-memory) to bytes; None or 0 = the default budget.
std::uint64_t megabytes(const py::handle& value) {
  if (value.is_none()) return 0;
  const double mb = value.cast<double>();
  if (!(mb > 0 && mb <= 1e12)) fail("max_memory: expected megabytes in (0, 1e12], found {}", mb);
  return static_cast<std::uint64_t>(mb * 1e6);
}

// How a Params struct's fields are set from Python values, by field name: each setter converts
// and checks its value (unsigned fields refuse negatives by name).
template <class Params>
using FieldSetters = std::map<std::string, std::function<void(Params&, const py::handle&)>>;

template <class Params, class T>
std::pair<const std::string, std::function<void(Params&, const py::handle&)>> field(
    const char* name, T Params::*member) {
  return {name, [name, member](Params& p, const py::handle& value) {
            if constexpr (std::is_same_v<T, std::uint64_t>) {
              p.*member = non_negative(value, name);
            } else {
              p.*member = value.cast<T>();
            }
          }};
}

// Sets the fields of `p` named by the keys of `options` ("<unknown> "key"" for other keys).
template <class Params>
void set_fields(Params& p, const py::dict& options, const FieldSetters<Params>& fields,
                const char* unknown) {
  for (const auto& [key, value] : options) {
    const std::string k = py::str(key);
    const auto it = fields.find(k);
    if (it == fields.end()) fail("{} {}", unknown, quote_found(k));
    it->second(p, value);
  }
}

// Options of the CNF methods and of splitting, from a dict whose keys are CountParams' field
// names.
const FieldSetters<count::CountParams>& count_option_fields() {
  using P = count::CountParams;
  static const FieldSetters<P> fields = {
      field("time_limit", &P::time_limit),
      field("epsilon", &P::epsilon),
      field("delta", &P::delta),
      field("ambiguity_limit", &P::ambiguity_limit),
      field("fraction_bits", &P::fraction_bits),
      field("weight_bits", &P::weight_bits),
      field("activation_bits", &P::activation_bits),
      field("max_boxes", &P::max_boxes),
      {"max_memory", [](P& p, const py::handle& v) { p.max_memory = megabytes(v); }}};
  return fields;
}

// count_vnnlib's options, keyed by SplitParams' field names.
const FieldSetters<count::SplitParams>& split_option_fields() {
  using P = count::SplitParams;
  static const FieldSetters<P> fields = {
      field("time_limit", &P::time_limit),
      field("max_boxes", &P::max_boxes),
      field("stop_when_decided", &P::stop_when_decided),
      field("enumerate_limit", &P::enumerate_limit),
      {"bounds",
       [](P& p, const py::handle& v) {
         p.bounds = count::parse_bound_method(v.cast<std::string>(), "bounds");
       }},
      {"samples", [](P& p, const py::handle& v) { p.samples = non_negative(v, "samples"); }},
      field("confidence", &P::confidence),
      field("seed", &P::seed),
      field("threads", &P::threads),
      {"max_memory", [](P& p, const py::handle& v) { p.max_memory = megabytes(v); }}};
  return fields;
}

std::span<const double> rows(const Array<double>& x, std::size_t n_features, std::size_t& n_rows) {
  if (x.ndim() != 2) fail("X must be a 2-D array, found {} dimensions", x.ndim());
  if (static_cast<std::size_t>(x.shape(1)) != n_features) {
    fail("X has {} features, the model expects {}", x.shape(1), n_features);
  }
  n_rows = static_cast<std::size_t>(x.shape(0));
  return {x.data(), static_cast<std::size_t>(x.size())};
}

}  // namespace

void bind_count_networks(py::module_& m);
void bind_count_instances(py::module_& m);

namespace {

using count::Model;
using count::Spec;

/// Models for counting: parse, load, describe, predict.
void register_models(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "CountModel");
  py::class_<Spec, std::shared_ptr<Spec>>(m, "CountSpec");

  m.def(
      "count_parse_model",
      [](const std::string& text, const std::string& where) {
        return std::make_shared<Model>(count::parse_model(text, where));
      },
      py::arg("text"), py::arg("where"));
  m.def(
      "count_load_model",
      [](const std::string& path) { return std::make_shared<Model>(count::load_model(path)); },
      py::arg("path"));
  m.def(
      "count_model_to_json", [](const Model& model) { return count::model_to_json(model).dump(); },
      py::arg("model"));
  m.def(
      "count_model_info",
      [](const Model& model) { return count::model_info_json(count::model_info(model)).dump(); },
      py::arg("model"));
  m.def(
      "count_predict_label",
      [](const Model& model, const Array<double>& x) {
        std::size_t n = 0;
        const auto data = rows(x, model.n_features, n);
        std::vector<std::int32_t> out(n);
        {
          const WithoutGil without_gil;
          for (std::size_t i = 0; i < n; ++i) {
            out[i] =
                count::predict_label(model, data.subspan(i * model.n_features, model.n_features));
          }
        }
        return to_numpy(std::move(out));
      },
      py::arg("model"), py::arg("X"));
  m.def(
      "count_predict_scores",
      [](const Model& model, const Array<double>& x) {
        std::size_t n = 0;
        const auto data = rows(x, model.n_features, n);
        std::vector<double> out;
        std::size_t width = 0;
        {
          const WithoutGil without_gil;
          for (std::size_t i = 0; i < n; ++i) {
            const auto s =
                count::predict_scores(model, data.subspan(i * model.n_features, model.n_features));
            width = s.size();
            out.insert(out.end(), s.begin(), s.end());
          }
        }
        if (n == 0) width = model.n_outputs;
        return to_numpy_2d(std::move(out), n, width);
      },
      py::arg("model"), py::arg("X"));
}

/// Input-space specifications and the count itself.
void register_specs(py::module_& m) {
  m.def(
      "count_parse_spec",
      [](const std::string& text, const std::string& file) {
        return std::make_shared<Spec>(count::parse_spec(text, file));
      },
      py::arg("text"), py::arg("file"));
  m.def(
      "count_load_spec",
      [](const std::string& path) { return std::make_shared<Spec>(count::load_spec(path)); },
      py::arg("path"));
  m.def(
      "count_spec_inputs",
      [](const Spec& spec) {
        std::vector<std::string> names;
        for (const auto& v : spec.domain.vars) names.push_back(v.name);
        return names;
      },
      py::arg("spec"));

  m.def(
      "count_count",
      [](const Model& model, const Spec& spec, const std::string& property,
         const std::string& method, const py::iterable& samples, const py::int_& seed,
         double confidence, int threads, const std::optional<Array<double>>& x_test,
         const std::optional<Array<std::int32_t>>& y_test, const py::dict& options, bool progress) {
        count::CountParams p;
        set_fields(p, options, count_option_fields(), "unknown counting option");
        p.property = property;
        p.samples = sample_sizes(samples);
        p.seed = non_negative(seed, "seed");
        p.confidence = confidence;
        p.threads = threads;
        if (x_test.has_value() != y_test.has_value())
          fail("give both X_test and y_test, or neither");
        if (x_test) {
          std::size_t n = 0;
          const auto data = rows(*x_test, model.n_features, n);
          p.test_x.assign(data.begin(), data.end());
          const auto y = view_1d(*y_test, "y_test");
          p.test_y.assign(y.begin(), y.end());
        }
        p.method = count::parse_count_method(method);
        const count::CountResult r =
            run_interruptible(progress, [&] { return count::count(model, spec, p); });
        return report::count_json(r).dump();
      },
      py::arg("model"), py::arg("spec"), py::arg("property"), py::arg("method"), py::arg("samples"),
      py::arg("seed"), py::arg("confidence"), py::arg("threads"), py::arg("X_test"),
      py::arg("y_test"), py::arg("options"), py::arg("progress") = true);
}

/// CNF formulas: read, build, project, count.
void register_cnf(py::module_& m) {
  py::class_<count::Cnf, std::shared_ptr<count::Cnf>>(m, "Cnf")
      .def_property_readonly("n_vars", [](const count::Cnf& f) { return f.n_vars; })
      .def_property_readonly("n_clauses", [](const count::Cnf& f) { return f.n_clauses(); })
      .def_property_readonly("projection", [](const count::Cnf& f) { return f.projected(); });
  m.def(
      "cnf_read",
      [](const std::string& path) {
        return std::make_shared<count::Cnf>(count::read_dimacs_file(path));
      },
      py::arg("path"));
  m.def(
      "cnf_from_clauses",
      [](const std::vector<std::vector<std::int64_t>>& clauses, std::int64_t n_vars) {
        auto f = std::make_shared<count::Cnf>();
        std::int64_t top = n_vars;
        for (const auto& c : clauses) {
          for (const auto lit : c) {
            if (lit == 0) fail("clauses hold non-zero literals; found 0");
            if (lit > count::kMaxCnfVariables || lit < -count::kMaxCnfVariables) {
              fail("literal {} is out of range (at most {} variables)", lit,
                   count::kMaxCnfVariables);
            }
            top = std::max(top, lit < 0 ? -lit : lit);
          }
        }
        f->n_vars = static_cast<std::int32_t>(top);
        std::vector<count::Var> buf;
        for (const auto& c : clauses) {
          buf.assign(c.begin(), c.end());
          f->add_clause(buf);
        }
        return f;
      },
      py::arg("clauses"), py::arg("n_vars"));
  m.def(
      "cnf_set_projection",
      [](count::Cnf& f, const std::vector<std::int64_t>& vars) {
        std::vector<count::Var> out;
        for (const auto v : vars) {
          if (v < 1 || v > f.n_vars) {
            fail("projected variable {} out of range [1, {}]", v, f.n_vars);
          }
          if (std::find(out.begin(), out.end(), static_cast<count::Var>(v)) != out.end()) {
            fail("projected variable {} is listed twice", v);
          }
          out.push_back(static_cast<count::Var>(v));
        }
        f.set_projection(std::move(out));
      },
      py::arg("cnf"), py::arg("vars"));
  m.def(
      "cnf_read_projection",
      [](count::Cnf& f, const std::string& path) { count::read_projection_file(f, path); },
      py::arg("cnf"), py::arg("path"));
  m.def(
      "cnf_count",
      [](const count::Cnf& f, const std::string& method, double time_limit, double epsilon,
         double delta, const py::int_& seed, int threads, const std::string& name, bool progress) {
        count::check_time_limit("time_limit", time_limit);
        count::CountParams p;
        p.method = count::parse_count_method(method, count::kCnfCountMethods, "for a CNF file");
        p.time_limit = time_limit;
        p.epsilon = epsilon;
        p.delta = delta;
        p.seed = non_negative(seed, "seed");
        p.threads = threads;
        const count::CnfCountResult r = run_interruptible(
            progress, [&] { return count::count_cnf(f, count::cnf_count_params(p)); });
        return report::cnf_count_json(r, name).dump();
      },
      py::arg("cnf"), py::arg("method"), py::arg("time_limit"), py::arg("epsilon"),
      py::arg("delta"), py::arg("seed"), py::arg("threads"), py::arg("name"), py::arg("progress"));
}

/// A model's CNF encoding and local-robustness counts.
void register_encoding_and_robustness(py::module_& m) {
  m.def(
      "count_encode",
      [](const Model& model, const Spec& spec, const std::string& property,
         const std::string& query, std::int32_t label, int fraction_bits, int weight_bits,
         int activation_bits, const std::string& out) {
        count::EncodeParams p;
        p.property = property;
        p.query = query;
        p.label = label;
        p.fraction_bits = fraction_bits;
        p.weight_bits = weight_bits;
        p.activation_bits = activation_bits;
        count::Encoding e;
        std::string text;
        {
          const WithoutGil without_gil;
          e = count::encode(model, spec, p);
          if (out.empty()) {
            text = count::write_dimacs(e.cnf);
          } else {
            count::write_dimacs_file(e.cnf, out);
          }
        }
        return py::make_tuple(report::encoding_json(e, out).dump(), text);
      },
      py::arg("model"), py::arg("spec"), py::arg("property"), py::arg("query"), py::arg("label"),
      py::arg("fraction_bits"), py::arg("weight_bits"), py::arg("activation_bits"), py::arg("out"));

  m.def(
      "count_robustness",
      [](const Model& model, const Array<double>& x, double epsilon, std::int32_t label,
         const std::vector<double>& lower, const std::vector<double>& upper, double step,
         const py::iterable& samples, const py::int_& seed, double confidence,
         const std::string& method, int threads, double time_limit, bool progress) {
        const auto xv = view_1d(x, "x");
        count::RobustnessParams p;
        p.epsilon = epsilon;
        p.label = label;
        p.lower = lower;
        p.upper = upper;
        p.step = step;
        p.samples = sample_sizes(samples);
        p.seed = non_negative(seed, "seed");
        p.confidence = confidence;
        p.method = count::parse_count_method(method);
        p.threads = threads;
        p.time_limit = time_limit;
        const count::RobustnessResult r =
            run_interruptible(progress, [&] { return count::robustness(model, xv, p); });
        return report::robustness_json(r).dump();
      },
      py::arg("model"), py::arg("x"), py::arg("epsilon"), py::arg("label"), py::arg("lower"),
      py::arg("upper"), py::arg("step"), py::arg("samples"), py::arg("seed"), py::arg("confidence"),
      py::arg("method"), py::arg("threads"), py::arg("time_limit") = 0.0,
      py::arg("progress") = true);
}

}  // namespace

void bind_count(py::module_& m) {
  register_models(m);
  register_specs(m);
  register_cnf(m);
  register_encoding_and_robustness(m);
  bind_count_networks(m);
  bind_count_instances(m);
}

// ONNX networks, VNN-LIB properties and counting by domain splitting (count part 3).
void bind_count_networks(py::module_& m) {
  using count::Model;
  m.def(
      "count_load_onnx",
      [](const std::string& path) { return std::make_shared<Model>(count::load_onnx(path)); },
      py::arg("path"));
  m.def(
      "count_parse_onnx",
      [](const py::bytes& data, const std::string& where) {
        return std::make_shared<Model>(count::parse_onnx(std::string(data), where));
      },
      py::arg("data"), py::arg("where"));
  py::class_<count::VnnProperty, std::shared_ptr<count::VnnProperty>>(m, "VnnProperty")
      .def_property_readonly("n_inputs", [](const count::VnnProperty& p) { return p.n_inputs; })
      .def_property_readonly("n_outputs", [](const count::VnnProperty& p) { return p.n_outputs; })
      .def_property_readonly("integer_inputs",
                             [](const count::VnnProperty& p) { return p.integer_inputs; })
      .def_property_readonly("boxes", [](const count::VnnProperty& p) {
        py::list out;
        for (const auto& r : p.regions) out.append(py::make_tuple(r.lo, r.hi, r.unsafe.size()));
        return out;
      });
  m.def(
      "vnnlib_parse",
      [](const std::string& text, const std::string& file) {
        return std::make_shared<count::VnnProperty>(count::parse_vnnlib(text, file));
      },
      py::arg("text"), py::arg("file"));
  m.def(
      "vnnlib_load",
      [](const std::string& path) {
        return std::make_shared<count::VnnProperty>(count::load_vnnlib(path));
      },
      py::arg("path"));
  m.def(
      "count_vnnlib",
      [](const Model& model, const count::VnnProperty& property, const py::dict& options,
         const std::string& model_name, const std::string& property_name, const std::string& html) {
        py::dict fields = options.attr("copy")();  // without "progress", which is not a field
        const bool progress =
            options.contains("progress") ? fields.attr("pop")("progress").cast<bool>() : true;
        count::SplitParams p;
        set_fields(p, fields, split_option_fields(), "unknown option");
        if (!html.empty()) check_writable(html, "html");
        const count::SplitResult r =
            run_interruptible(progress, [&] { return count::count_unsafe(model, property, p); });
        if (!html.empty()) report::split_html(r, model_name, property_name).write(html);
        return report::split_json(r, model_name, property_name).dump();
      },
      py::arg("model"), py::arg("property"), py::arg("options"), py::arg("model_name"),
      py::arg("property_name"), py::arg("html"));
  m.def(
      "count_network_bounds",
      [](const Model& model, const std::vector<double>& lo, const std::vector<double>& hi,
         const std::string& method) {
        if (lo.size() != model.n_features || hi.size() != model.n_features) {
          fail("lower and upper need {} values (one per input), found {} and {}", model.n_features,
               lo.size(), hi.size());
        }
        for (std::size_t i = 0; i < lo.size(); ++i) {
          if (!(lo[i] <= hi[i])) fail("input {}: lower {} is above upper {}", i, lo[i], hi[i]);
        }
        const count::BoundMethod bounds = count::parse_bound_method(method, "method");
        const count::NetworkBounds nb(model);
        count::BoundResult r;
        nb.output_bounds(lo, hi, bounds, r);
        return py::make_tuple(r.lower, r.upper);
      },
      py::arg("model"), py::arg("lower"), py::arg("upper"), py::arg("method"));
}

// VNN-COMP benchmarks: an instances CSV run instance by instance (assay count --instances).
void bind_count_instances(py::module_& m) {
  m.def(
      "count_run_instances",
      [](const std::string& csv, const std::string& results, double time_limit,
         const py::dict& options, const std::string& csv_out) {
        py::dict fields = options.attr("copy")();  // without "progress", which is not a field
        const bool progress =
            options.contains("progress") ? fields.attr("pop")("progress").cast<bool>() : true;
        count::InstancesParams p;
        set_fields(p.split, fields, split_option_fields(), "unknown option");
        p.time_limit = time_limit;
        p.results = results;
        const InputFilesScope inputs;  // no result file may replace one of them
        note_input(csv, "the instances file");
        if (!csv_out.empty()) check_writable(csv_out, "csv_out");
        const count::InstanceList list = count::load_instances(csv);
        const count::InstancesResult r =
            run_interruptible(progress, [&] { return count::run_instances(list, p); });
        if (!csv_out.empty()) write_file_atomic(csv_out, report::instances_csv(r));
        return report::instances_json(r).dump();
      },
      py::arg("csv"), py::arg("results"), py::arg("time_limit"), py::arg("options"),
      py::arg("csv_out"));
}

}  // namespace assay::python
