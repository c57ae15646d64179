"""Build the documentation site with warnings as errors (Sphinx + myst-nb, ``docs/``).

The notebooks are rendered from the executed copies ``tests/test_notebooks.py`` leaves in ``build/notebooks/``
(run earlier in the same session: pytest orders test files by name); a notebook without a current copy is
executed here, once, by the same function.
"""

import pathlib

import pytest
from test_notebooks import EXECUTED, NOTEBOOKS, execute

sphinx_cmd = pytest.importorskip("sphinx.cmd.build", reason="the docs extra is not installed")

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.slow
def test_site_builds_without_warnings(tmp_path):
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
