"""The settings tree: flat variables reach their sections, presets sit
between the environment and the defaults, and every bad value, from a flag,
a variable, `.env` or a preset name, is one line naming where it came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from assistant import settings as settings_module
from assistant.cli import main
from assistant.errors import ConfigError
from assistant.settings import FIELDS, Settings, env_names, load_settings, preset_names, preset_values


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable or `.env` of the developer's leaks in: each test sets its own."""
    for name in ["PAPER_ASSISTANT_PRESET", *(n for field in FIELDS for n in env_names(field))]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_flat_variables_reach_their_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPER_ASSISTANT_TOPICS_PER_AREA", "3")
    monkeypatch.setenv("PAPER_ASSISTANT_LOCAL_PORT", "9123")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CHROMA_URL", "http://127.0.0.1:8000")
    settings = Settings()
    assert settings.topics.topics_per_area == 3 and settings.local.local_port == 9123
    assert settings.llm.base_url == "http://127.0.0.1:9/v1" and settings.index.chroma_url == "http://127.0.0.1:8000"


def test_flag_over_environment_over_preset_over_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPER_ASSISTANT_PRESET", "fast")
    monkeypatch.setenv("PAPER_ASSISTANT_ANSWER_PAPERS", "5")
    monkeypatch.setenv("PAPER_ASSISTANT_EVIDENCE_TOKENS", "700")
    settings = load_settings({"evidence_tokens": 200, "top_k": 7}, {})
    fast, default = preset_values("fast")["answer"], Settings.load(preset="default")
    assert settings.preset == "fast"
    assert settings.answer.evidence_tokens == 200  # the flag over the environment
    assert settings.answer.answer_papers == 5 != fast["answer_papers"]  # the environment over the preset
    assert settings.answer.evidence_sentences == fast["evidence_sentences"] != default.answer.evidence_sentences
    assert settings.local.local_model == "fast"  # the preset over the default
    assert settings.retrieval.top_k == 7 and settings.retrieval.rrf_k == default.retrieval.rrf_k


def test_the_default_preset_changes_nothing() -> None:
    assert preset_values("default") == {}
    assert Settings.load(preset="default") == Settings() == Settings.load()


def test_preset_from_dotenv_and_the_flag_over_it() -> None:
    Path(".env").write_text("PAPER_ASSISTANT_PRESET=quality\n", encoding="utf-8")
    assert Settings().preset == "quality"
    assert Settings().retrieval.retrieval_candidates == preset_values("quality")["retrieval"]["retrieval_candidates"]
    assert load_settings({"preset": "fast"}, {}).local.local_model == "fast"


@pytest.mark.parametrize("name", preset_names())
def test_every_shipped_preset_loads(name: str) -> None:
    assert Settings.load(preset=name).preset == name


def test_unknown_preset_is_one_line_listing_the_names(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError) as from_flag:
        load_settings({"preset": "turbo"}, {})
    assert str(from_flag.value) == ("Unknown preset 'turbo' (PAPER_ASSISTANT_PRESET or --preset): use one of "
                                    "default, fast, quality.")
    monkeypatch.setenv("PAPER_ASSISTANT_PRESET", "turbo")
    with pytest.raises(ConfigError, match="Unknown preset 'turbo'"):
        Settings()


def test_a_preset_with_a_key_the_tree_lacks_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "typo.toml").write_text("[answer]\nanswer_paper = 3\n", encoding="utf-8")
    monkeypatch.setattr(settings_module, "PRESETS", tmp_path)
    preset_values.cache_clear()
    try:
        with pytest.raises(ConfigError, match="Preset 'typo' sets unknown settings: answer_paper."):
            load_settings({"preset": "typo"}, {})
    finally:
        preset_values.cache_clear()


def test_cli_preset_flag_on_a_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papers", "--preset", "turbo", "--storage", str(tmp_path / "none")]) == 1
    assert capsys.readouterr().err == ("error: Unknown preset 'turbo' (PAPER_ASSISTANT_PRESET or --preset): use one "
                                       "of default, fast, quality.\n")


@pytest.mark.parametrize(("source", "message"), [
    ("env", "PAPER_ASSISTANT_VALUE_IN_QUOTE must be a number from 0 to 1 (got '2')."),
    ("dotenv", "PAPER_ASSISTANT_VALUE_IN_QUOTE must be a number from 0 to 1 (got '2')."),
    ("flag", "--value-in-quote must be a number from 0 to 1 (got 2)."),
])
def test_a_bad_value_in_a_section_is_one_line_naming_its_source(source: str, message: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if source == "env":
        monkeypatch.setenv("PAPER_ASSISTANT_VALUE_IN_QUOTE", "2")
    elif source == "dotenv":
        Path(".env").write_text("PAPER_ASSISTANT_VALUE_IN_QUOTE=2\n", encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_settings({"value_in_quote": 2} if source == "flag" else {}, {})
    assert str(error.value) == message


def test_ui_login_from_dotenv_and_never_printed() -> None:
    Path(".env").write_text("PAPER_ASSISTANT_UI_AUTH=lab:pw-Secret-1\nPAPER_ASSISTANT_UI_PORT=7999\n",
                            encoding="utf-8")
    settings = Settings()
    assert settings.ui.credentials() == ("lab", "pw-Secret-1") and settings.ui.ui_port == 7999
    assert "pw-Secret-1" not in repr(settings) and "pw-Secret-1" not in str(settings.model_dump())


def test_ui_login_without_a_password_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    Path(".env").write_text("PAPER_ASSISTANT_UI_AUTH=lab-secret\n", encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_settings({}, {})
    assert str(error.value) == "PAPER_ASSISTANT_UI_AUTH: takes USER:PASSWORD."
    assert main(["ui", "--auth", "lab:", "--storage", "none"]) == 1
    assert capsys.readouterr().err == "error: --auth: takes USER:PASSWORD.\n"


def test_with_routes_flat_names_and_validates() -> None:
    settings = Settings().with_(top_k=9, base_url=None, local_port=9001)
    assert (settings.retrieval.top_k, settings.llm.base_url, settings.local.local_port) == (9, None, 9001)
    with pytest.raises(ValidationError):
        settings.with_(top_k=0)
    with pytest.raises(TypeError, match="no setting named 'topk'"):
        settings.with_(topk=3)
