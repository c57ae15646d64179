"""The README's commands are the ones CI runs, and its quick start runs."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    test_command = next(c for c in commands if "pytest" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_quick_start_runs():
    code = re.search(r"## Quick start\n\n```python\n(.*?)```", README, re.S).group(1)
    exec(compile(code, "README quick start", "exec"), {})
