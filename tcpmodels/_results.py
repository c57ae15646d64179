"""Base for the small frozen result objects the models return."""

import dataclasses

__all__ = ["Result"]


@dataclasses.dataclass(frozen=True)
class Result:
    """Named fields that also unpack like a tuple and convert with ``to_dict()``."""

    def to_dict(self):
        """Return the fields as a ``{name: value}`` dict (arrays stay arrays)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __iter__(self):
        return iter(getattr(self, f.name) for f in dataclasses.fields(self))
