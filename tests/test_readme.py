"""The README's configuration table against ``Settings``: every variable it
lists sets the field it claims with the default it states, and every field a
``PAPER_ASSISTANT_`` variable can set is listed. The table is what users
read, so a default changed in code must fail here until the README follows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assistant.settings import Settings, env_names

README = Path(__file__).resolve().parents[1] / "README.md"
#: Variables the table lists that are read outside ``Settings`` (the UI's
#: login and the CLI's traceback switch, both read from the environment).
NOT_SETTINGS = {"PAPER_ASSISTANT_UI_AUTH", "PAPER_ASSISTANT_DEBUG"}


def table_rows() -> list[tuple[list[list[str]], list[str]]]:
    """The configuration table: per row, the variables of each ' / '-separated
    part (the first, then its aliases in parentheses) and each part's default."""
    section = README.read_text(encoding="utf-8").split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) != 3:
            continue
        parts = [re.findall(r"`([A-Z_]+)`", part) for part in re.split(r" / (?![^(]*\))", cells[0])]
        names = [["PAPER_ASSISTANT" + name if name.startswith("_") else name for name in part] for part in parts]
        rows.append((names, [d.strip() for d in cells[1].split(" / ")]))
    return rows


def parsed_default(text: str) -> Any:
    """A table default as a value: the backticked literal, else None ("unset",
    "the endpoint's first model")."""
    literal = re.match(r"`([^`]*)`", text)
    return literal.group(1) if literal else None


def same(readme: Any, code: Any) -> bool:
    if readme is None or code is None:
        return readme is None and code is None
    if isinstance(code, bool):
        return readme in ("true", "false") and (readme == "true") == code
    if isinstance(code, (int, float)):
        return float(readme) == float(code)
    return readme == str(code)


def test_the_configuration_table_matches_settings() -> None:
    fields = {name: field for field in Settings.model_fields for name in env_names(field)}
    listed: set[str] = set()
    rows = table_rows()
    assert len(rows) >= 20, "the configuration table was not found"
    for parts, defaults in rows:
        assert len(parts) == len(defaults), f"{parts}: one default per variable"
        for names, default in zip(parts, defaults, strict=True):
            if names[0] in NOT_SETTINGS:
                assert default == "unset"
                continue
            field = fields.get(names[0])
            assert field is not None, f"{names[0]} sets no setting"
            assert sorted(names) == sorted(env_names(field)), f"{field}: the table's variables are not its own"
            code = Settings.model_fields[field].default
            assert same(parsed_default(default), code), f"{names[0]}: README says {default}, the code {code!r}"
            listed.add(field)
    ours = {f for f in Settings.model_fields if any(n.startswith("PAPER_ASSISTANT_") for n in env_names(f))}
    assert ours <= listed, f"not in the README's configuration table: {sorted(ours - listed)}"


def test_defaults_quoted_in_the_text_match_settings() -> None:
    """Prose such as "`PAPER_ASSISTANT_TOPIC_WINDOW` (0.15)" states a default too."""
    fields = {name: field for field in Settings.model_fields for name in env_names(field)}
    quoted = re.findall(r"`(PAPER_ASSISTANT_[A-Z_]+)` \(([0-9.]+)\)", README.read_text(encoding="utf-8"))
    assert quoted
    for name, default in quoted:
        code = Settings.model_fields[fields[name]].default
        assert same(default, code), f"{name}: README says ({default}), the code {code!r}"
