"""The README's configuration tables against the settings tree: every
variable they list sets the field it claims, in the section whose heading
it sits under, with the default it states; and every field of the tree is
listed. The tables are what users read, so a default changed in code must
fail here until the README follows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_PRESET, FIELDS, SECTION_OF, env_names

README = Path(__file__).resolve().parents[1] / "README.md"
#: Variables of the general table (no section): the preset's name, and the
#: CLI's traceback switch read straight from the environment.
GENERAL = {"PAPER_ASSISTANT_PRESET": DEFAULT_PRESET, "PAPER_ASSISTANT_DEBUG": None}


def table_rows() -> list[tuple[str | None, list[list[str]], list[str]]]:
    """The configuration tables: per row, the section of the heading above
    it (None before the first), the variables of each ' / '-separated part
    (the first, then its aliases in parentheses) and each part's default."""
    text = README.read_text(encoding="utf-8").split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    section = None
    for line in text.splitlines():
        heading = re.match(r"### `settings\.(\w+)`", line)
        if heading:
            section = heading.group(1)
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) != 3:
            continue
        parts = [re.findall(r"`([A-Z_]+)`", part) for part in re.split(r" / (?![^(]*\))", cells[0])]
        names = [["PAPER_ASSISTANT" + name if name.startswith("_") else name for name in part] for part in parts]
        rows.append((section, names, [d.strip() for d in cells[1].split(" / ")]))
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


def by_variable() -> dict[str, str]:
    return {name: field for field in FIELDS for name in env_names(field)}


def test_the_configuration_tables_match_the_settings_tree() -> None:
    fields = by_variable()
    listed: set[str] = set()
    rows = table_rows()
    assert len(rows) >= 30, "the configuration tables were not found"
    for section, parts, defaults in rows:
        assert len(parts) == len(defaults), f"{parts}: one default per variable"
        for names, default in zip(parts, defaults, strict=True):
            if section is None:
                assert names[0] in GENERAL, f"{names[0]} belongs under its section's heading"
                assert same(parsed_default(default), GENERAL[names[0]]), f"{names[0]}: README says {default}"
                continue
            field = fields.get(names[0])
            assert field is not None, f"{names[0]} sets no setting"
            assert SECTION_OF[field] == section, f"{field} is in settings.{SECTION_OF[field]}, not {section}"
            assert sorted(names) == sorted(env_names(field)), f"{field}: the table's variables are not its own"
            code = FIELDS[field].default
            assert same(parsed_default(default), code), f"{names[0]}: README says {default}, the code {code!r}"
            listed.add(field)
    assert set(FIELDS) <= listed, f"not in the README's configuration tables: {sorted(set(FIELDS) - listed)}"


def test_defaults_quoted_in_the_text_match_settings() -> None:
    """Prose such as "`PAPER_ASSISTANT_TOPIC_WINDOW` (0.15)" states a default too."""
    fields = by_variable()
    quoted = re.findall(r"`(PAPER_ASSISTANT_[A-Z_]+)` \(([0-9.]+)\)", README.read_text(encoding="utf-8"))
    assert quoted
    for name, default in quoted:
        code = FIELDS[fields[name]].default
        assert same(default, code), f"{name}: README says ({default}), the code {code!r}"
