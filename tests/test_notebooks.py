"""Execute every notebook so none rots (design guide: notebooks run in CI), keep the stored ones clean, and
build the documentation site from the executed copies.

Each executed notebook is written to ``build/notebooks/``: the site (``docs/conf.py``) renders those copies, so
a full run executes every notebook once, not twice.  The site's build lives in this file, after the notebooks,
because the suite runs in parallel one file per worker (``--dist loadfile``): in a file of its own it could
start before, or while, another worker writes those copies.
"""

import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXECUTED = ROOT / "build" / "notebooks"


def execute(path):
    """Run the notebook at `path` (errors in any cell raise) and write the executed copy to build/notebooks."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}},
                   ).execute()
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, EXECUTED / path.name)
    return nb


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    execute(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    # Stored notebooks carry no outputs, so what is in git is what the code computes when run.
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(c.outputs or c.execution_count for c in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_by_saying_what_it_reproduces(path):
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    sizes = re.findall(r"^FULL = (\w+)", "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                                                   if c.cell_type == "code"), flags=re.M)
    # Notebooks that simulate default to the small runs that keep the suite within its budget.
    assert sizes in ([], ["False"])


def test_every_notebook_the_readme_names_exists():
    # Notebooks are renamed as themes regroup; a stale name in the README would send readers nowhere.
    named = set(re.findall(r"notebooks/([\w.-]+\.ipynb)", (ROOT / "README.md").read_text()))
    assert named <= {p.name for p in NOTEBOOKS}


@pytest.mark.slow
def test_site_builds_without_warnings(tmp_path):
    # Sphinx + myst-nb (docs/), warnings as errors; a notebook without a current executed copy (when this test
    # runs alone) is executed here, once, by the same function.
    sphinx_cmd = pytest.importorskip("sphinx.cmd.build", reason="the docs extra is not installed")
    for path in NOTEBOOKS:
        copy = EXECUTED / path.name
        if not copy.exists() or copy.stat().st_mtime < path.stat().st_mtime:
            execute(path)
    status = sphinx_cmd.build_main(["-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(tmp_path)])
    assert status == 0
    for path in NOTEBOOKS:  # every notebook rendered with its figures
        page = (tmp_path / "_notebooks" / path.name).with_suffix(".html").read_text()
        assert "<img" in page, path.name
    api = {p.stem for p in (tmp_path / "api").glob("tcpmodels*.html")}
    assert {"tcpmodels.tcp", "tcpmodels.red", "tcpmodels.fpq", "tcpmodels.sim", "tcpmodels.data"} <= api
    for page in ("getting-started", "glossary", "cli", "trust", "data"):
        assert (tmp_path / f"{page}.html").exists()
