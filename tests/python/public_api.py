"""The public API of the assay package, derived from the code (never listed by hand), for the
docstring, doctest and API-reference tests: every public module (``assay`` and the modules it
exports, recursively), every public function and class each one exports (its ``__all__``, else
its public names defined in assay), and the public methods of those classes."""
import importlib
import inspect

ROOT_MODULE = "assay"

# Objects defined in C++ (the compiled module assay._assay): their docstrings come from the
# bindings, which numpydoc cannot validate (no Python signature) and which no doctest reaches.
COMPILED = {
    "assay.AssayError": "C++ exception class (pybind11 binding)",
    "assay.AssayWarning": "C++ warning class (pybind11 binding)",
    "assay.get_num_threads": "C++ function (pybind11 binding)",
    "assay.set_num_threads": "C++ function (pybind11 binding)",
    "assay.metrics.UndefinedMetricWarning": "C++ warning class (pybind11 binding)",
}


def _is_public_submodule(parent, value):
    return (inspect.ismodule(value) and value.__name__.startswith(parent.__name__ + ".")
            and not any(part.startswith("_") for part in value.__name__.split(".")))


def public_modules():
    """Every public module's name, ``assay`` first, each parent before its children."""
    # assay.learners loads on first use (it imports scikit-learn): touch it so it is listed.
    importlib.import_module(ROOT_MODULE + ".learners")
    seen, order = set(), []
    pending = [importlib.import_module(ROOT_MODULE)]
    while pending:
        module = pending.pop(0)
        if module.__name__ in seen:
            continue
        seen.add(module.__name__)
        order.append(module.__name__)
        for name in sorted(vars(module)):
            value = getattr(module, name)
            if _is_public_submodule(module, value):
                pending.append(value)
    return order


def _exported_names(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return sorted(name for name, value in vars(module).items()
                  if not name.startswith("_")
                  and (inspect.isfunction(value) or inspect.isclass(value))
                  and getattr(value, "__module__", "").startswith(ROOT_MODULE))


def public_objects(module_name):
    """``(qualified name, object)`` of the functions and classes ``module_name`` exports."""
    module = importlib.import_module(module_name)
    out = []
    for name in _exported_names(module):
        value = getattr(module, name)
        if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
            out.append((f"{module_name}.{name}", value))
    return out


def public_methods(class_name, cls):
    """``(qualified name, member)`` of the public methods and properties of ``cls`` that assay
    defines (those it inherits from scikit-learn, numpy or builtins are theirs to document)."""
    out = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.startswith(ROOT_MODULE):
            continue
        member = vars(owner)[name]
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            out.append((f"{class_name}.{name}", member))
    return out


def everything():
    """Every public function, class and method, as ``(qualified name, object)``."""
    out = []
    for module_name in public_modules():
        for name, value in public_objects(module_name):
            out.append((name, value))
            if inspect.isclass(value):
                out.extend(public_methods(name, value))
    return out
