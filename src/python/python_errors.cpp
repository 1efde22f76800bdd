// SPDX-License-Identifier: Apache-2.0
// The library's exceptions as Python exceptions (linksim/errors.py): ConfigError becomes
// linksim.InputError with file, line, column, message, notes and the rendered diagnostic;
// InternalError becomes linksim.InternalError; anything else pybind11's default. Nothing
// aborts the interpreter.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "linksim/error.hpp"
#include "python/bindings.hpp"
#include "python/source_text_error.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

/// Raises linksim.errors.<class_name>(message, file=..., line=..., column=..., notes=...,
/// summary=..., diagnostic=...) as the pending Python exception.
void raise_linksim_error(const char* class_name, const std::string& message,
                         const std::string& file, int line, int column,
                         const std::vector<std::string>& notes, const std::string& summary,
                         const std::string& diagnostic) {
  py::object error_class = py::module_::import("linksim.errors").attr(class_name);
  py::object error = error_class(message, py::arg("file") = file.empty() ? py::object(py::none())
                                                                        : py::str(file),
                                 py::arg("line") = line, py::arg("column") = column,
                                 py::arg("notes") = notes, py::arg("summary") = summary,
                                 py::arg("diagnostic") = diagnostic);
  PyErr_SetObject(error_class.ptr(), error.ptr());
}

// Request fields whose keyword is spelled otherwise (linksim/__init__.py); the rest are the
// keyword as they are ("micro_batch", "per_node").
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kFieldKeywords{{
    {"first_n", "gpus"},
    {"min_bytes", "minbytes"},
    {"max_bytes", "maxbytes"},
    {"factor", "stepfactor"},
    {"step_bytes", "stepbytes"},
    {"size_bytes", "sizes"},
    {"baseline_gpus", "baseline"},
}};

std::string_view keyword_for_field(std::string_view field) {
  for (const auto& [name, keyword] : kFieldKeywords) {
    if (name == field) return keyword;
  }
  return field;
}

void raise_input_error(const ConfigError& raised, const std::string& diagnostic) {
  const ConfigError e =
      raised.field().empty() ? raised : raised.with_field_spelled(keyword_for_field(raised.field()));
  const SourceLocation& where = e.where();
  raise_linksim_error("InputError", e.message(), where.file.str(), where.line,
                      where.column, e.notes(), e.what(),
                      raised.field().empty() ? diagnostic : format_diagnostic(e));
}

}  // namespace

void bind_python_errors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const SourceTextError& e) {
      raise_input_error(e.error, format_diagnostic(e.error, e.source_text));
    } catch (const ConfigError& e) {
      raise_input_error(e, format_diagnostic(e));
    } catch (const InternalError& e) {
      raise_linksim_error("InternalError", e.message(), e.file(), e.line(), 0, {}, e.what(),
                          e.what());
    }
  });
}

}  // namespace linksim::python
