"""Scenario files shipped with tcpmodels (TOML): ``tcpmodels simulate example:NAME``.

List them with ``tcpmodels example --list`` or
:func:`tcpmodels.scenario_file.example_names`; read one with
:func:`tcpmodels.scenario_file.load_scenario` (``"example:standard_red"``).
"""

__all__ = []
