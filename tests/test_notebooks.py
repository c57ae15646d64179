"""Execute every notebook so none rots (design guide: notebooks run in CI), and keep the stored ones clean.

Each executed notebook is written to ``build/notebooks/``: the documentation site (``docs/conf.py``) renders
those copies, so a full run executes every notebook once, not twice.
"""

import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
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
