"""Every public function and class documents every parameter, with a unit in brackets (design guide)."""

import importlib
import inspect
import pkgutil
import re

import pytest

import tcpmodels

MODULES = sorted(m.name for m in pkgutil.walk_packages(tcpmodels.__path__, "tcpmodels.")
                 if not m.name.rsplit(".", 1)[-1].startswith("_"))


def public_callables():
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue  # exceptions take the message only
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == name:
                yield f"{name}.{attr}", obj


@pytest.mark.parametrize("qualname,obj", list(public_callables()), ids=lambda x: x if isinstance(x, str) else "")
def test_parameters_documented(qualname, obj):
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{qualname} has no docstring"
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]
    except (TypeError, ValueError):
        params = []
    if inspect.isclass(obj) and target is object.__init__:
        params = []
    # A subclass may document its parameters as "Parameters as :class:`Base`".
    docs = [inspect.getdoc(k) or "" for k in inspect.getmro(obj)] if inspect.isclass(obj) else [doc]
    documented = set()
    for line in "\n".join(docs).splitlines():
        m = re.match(r"^(\w+(?:\s*,\s*\w+)*)\s*:", line)
        if m:
            documented.update(x.strip() for x in m.group(1).split(","))
    missing = [p for p in params if p not in documented and not p.startswith("_")]
    assert not missing, f"{qualname}: undocumented parameters {missing}"


def test_every_module_has_all():
    for name in MODULES:
        assert hasattr(importlib.import_module(name), "__all__"), name
