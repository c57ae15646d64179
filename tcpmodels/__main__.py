"""``python -m tcpmodels``: the same as the ``tcpmodels`` command (:func:`tcpmodels.cli.main`)."""

from .cli import main

__all__ = []

if __name__ == "__main__":
    raise SystemExit(main())
