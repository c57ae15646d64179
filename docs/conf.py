"""Sphinx configuration of the tcpmodels documentation site.

Build it with ``python -m sphinx -W -b html docs build/site`` from the repository root.

The notebooks are rendered with their figures without executing them twice in CI: the notebook test
(``tests/test_notebooks.py``) writes each executed notebook to ``build/notebooks/``; this configuration copies
those executed copies into ``docs/_notebooks/`` when they are newer than their source, and otherwise copies
the source with a flag that makes myst-nb execute it during the build.  The API reference pages are generated
from the package's modules, so a module added or split needs no edit here.
"""

import importlib
import json
import pathlib
import pkgutil
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tcpmodels  # noqa: E402  (after the path is set, for builds from a checkout)

project = "tcpmodels"
author = "the tcpmodels authors"
copyright = "the tcpmodels authors, MIT licence"
release = version = getattr(tcpmodels, "__version__", "")

extensions = ["myst_nb", "sphinx.ext.autodoc", "numpydoc", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
numpydoc_show_class_members = False  # autodoc lists the members; numpydoc would list them a second time
numpydoc_class_members_toctree = False
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
nb_execution_mode = "off"  # notebooks arrive executed (see the module docstring)
nb_execution_timeout = 600
nb_execution_raise_on_error = True
html_theme = "alabaster"
html_title = "tcpmodels"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["myst.header"]  # documents that start at a level-2 heading after an include

NOTEBOOKS = ROOT / "notebooks"
EXECUTED = ROOT / "build" / "notebooks"
RENDERED = pathlib.Path(__file__).resolve().parent / "_notebooks"


def _stage_notebooks():
    """Copy each notebook (its executed copy when current) where the site can render it."""
    shutil.rmtree(RENDERED, ignore_errors=True)
    RENDERED.mkdir()
    for source in sorted(NOTEBOOKS.glob("*.ipynb")):
        executed = EXECUTED / source.name
        if executed.exists() and executed.stat().st_mtime >= source.stat().st_mtime:
            shutil.copy2(executed, RENDERED / source.name)
            continue
        nb = json.loads(source.read_text())
        nb.setdefault("metadata", {})["mystnb"] = {"execution_mode": "force"}
        (RENDERED / source.name).write_text(json.dumps(nb))


def _public_modules():
    """Every public module with an ``__all__``; a subpackage is documented by its ``__init__`` alone (it
    re-exports its parts, and documenting both would describe each object twice)."""
    names = []
    for info in pkgutil.walk_packages(tcpmodels.__path__, "tcpmodels."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts) or len(parts) > 2:
            continue
        module = importlib.import_module(info.name)
        if getattr(module, "__all__", None) is not None:
            names.append(info.name)
    return names


def _write_api_pages():
    """One page per module (numpydoc turns each docstring's sections into headings, unique only per page)."""
    pages = pathlib.Path(__file__).resolve().parent / "api"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir()
    modules = _public_modules()
    for name in modules:
        (pages / f"{name}.md").write_text(f"# `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n```\n")
    (pages / "index.md").write_text("\n".join(
        ["# API reference", "",
         "Generated from the numpydoc docstrings of every public module (those with an `__all__`).", "",
         "```{toctree}", ":maxdepth: 1", "", *modules, "```", ""]))


def _module_sections_as_rubrics(app, what, name, obj, options, lines):
    """numpydoc leaves module docstrings as plain reST, whose underlined "Examples" would become real
    sections with page-global labels that collide across modules; render them as rubrics instead."""
    if what != "module":
        return
    for i in range(len(lines) - 1):
        title, rule = lines[i].strip(), lines[i + 1].strip()
        if title and len(rule) >= len(title) and set(rule) == {"-"}:
            lines[i], lines[i + 1] = f".. rubric:: {title}", ""


def setup(app):
    app.connect("autodoc-process-docstring", _module_sections_as_rubrics)


_stage_notebooks()
_write_api_pages()
