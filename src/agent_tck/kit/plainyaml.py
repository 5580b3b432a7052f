"""The kit's own small YAML files (baselines, manifests, requirement registries), read as
plain data: regular files bounded in size (`kit.files.read_bounded`), no anchors or aliases
(a few hundred bytes of aliases can expand to gigabytes), UTF-8. Errors name the file and say
what is wrong with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent_tck.kit.errors import UsageError
from agent_tck.kit.files import read_bounded

MAX_BYTES = 1024 * 1024
# libyaml's parser where PyYAML has it (ten times the pure-Python one's speed; the registry
# is read by every conformance run), the same documents and errors either way.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class PlainYamlError(ValueError):
    """A file that is not small, plain YAML; the message names the file."""


def load(path: Path, what: str) -> Any:
    """The YAML document in `path` (a `what`, for the messages)."""
    try:
        data = read_bounded(path, MAX_BYTES, what)
    except UsageError as exc:
        raise PlainYamlError(str(exc)) from None
    try:
        text = data.decode("utf-8")
        for event in yaml.parse(text, Loader=SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = event.start_mark
                where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
                raise PlainYamlError(f"{what} {path}{where}: anchors and aliases are not "
                                     "allowed here")
        return yaml.load(text, Loader=SafeLoader)
    except UnicodeDecodeError as exc:
        raise PlainYamlError(f"{what} {path}: not UTF-8 ({exc.reason} at byte {exc.start})"
                             ) from None
    except yaml.YAMLError as exc:
        raise PlainYamlError(f"{what} {path}: not YAML: {exc}") from None
