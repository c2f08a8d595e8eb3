"""The chat UI in a real browser: Debian's chromium driven by Playwright,
against the real library, the seed index and the scripted OpenAI server.

What a researcher sees is checked on the page itself: source cards before
the first token, the answer streaming, citations linking to their cards,
follow-ups, topic summaries, comparisons picked in the pickers, browsing,
export, the LLM-down note, and abstracts full of markup staying inert.
Every page also asserts that no dialog opened and nothing was fetched from
outside the app (it runs offline).
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

from assistant.embedding import MiniLMEmbedding
from assistant.index import PaperIndex
from assistant.papers import load_papers
from assistant.settings import Settings

from .conftest import compare_replies, copy_storage, source_number
from .openai_server import ScriptedOpenAI

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = Path(os.environ.get("PAPER_ASSISTANT_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

from ui.app import launch  # only once the browser is known to exist: it imports gradio

expect = sync_api.expect
Page = sync_api.Page
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
SPINT_FACT = "SPINT is a Spatial Permutation-Invariant Neural Transformer framework for behavioral decoding"
SOURCE_LINE = re.compile(r"^\[(\d+)\] .* \([^()]*\): (.*)$", re.MULTILINE)
XSS_RECORD = {
    "id": "xss-1",
    "title": 'Injecto <img src=x onerror="window.__xss=5">',
    "venue": "XSS Conf 2025",
    "url": "javascript:window.__xss=6",
    "abstract": ('<script>window.__xss=1</script> We propose Injecto, a retrieval method '
                 '<img src=x onerror="window.__xss=2"> that finds <a href="javascript:window.__xss=3">x</a> '
                 "documents robustly, evaluated on many benchmarks with strong results across all settings and "
                 "tasks. It needs no labels at all."),
}


def echo(body: dict) -> str:
    """A scripted answer that quotes the first sentence of each source it was
    given, cited: supported by construction, whatever the question."""
    prompt = body["messages"][-1]["content"]
    quoted = [(n, re.split(r"(?<=[.!?])\s", text)[0].rstrip(".")) for n, text in SOURCE_LINE.findall(prompt)]
    return " ".join(f"{sentence} [{n}]." for n, sentence in quoted[:3])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Served:
    url: str
    startup_s: float


@contextmanager
def serving(settings: Settings) -> Iterator[Served]:
    """The UI launched in this process on a free port, timed from launch()
    to the first page served."""
    port = free_port()
    start = time.perf_counter()
    demo = launch(settings.with_(ui_port=port), prevent_thread_lock=True, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    with urllib.request.urlopen(url) as response:
        assert response.status == 200
    try:
        yield Served(url, time.perf_counter() - start)
    finally:
        demo.close()


def ui_settings(storage: Path, server: ScriptedOpenAI) -> Settings:
    return Settings.load(storage=storage, base_url=server.base_url, model="test-model",
                         api_key=SecretStr("sk-test-secret-123"), retry_backoff=0.0, max_retries=1,
                         request_timeout=10.0)


@pytest.fixture(scope="session")
def ui(seed_settings: Settings, llm_server: ScriptedOpenAI) -> Iterator[Served]:
    with serving(ui_settings(seed_settings.index.storage, llm_server)) as served:
        yield served


@pytest.fixture(scope="session")
def browser() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@contextmanager
def opened(browser: sync_api.Browser, url: str) -> Iterator[Page]:
    """A fresh browser session on ``url`` (so a fresh chat session), checked
    at the end for dialogs and requests that left the app."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    dialogs: list[str] = []
    outside: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: None if request.url.startswith((url, "data:", "blob:"))
            else outside.append(request.url))
    page.goto(url)
    page.wait_for_selector("#status .ready, #status .failed")
    try:
        yield page
    finally:
        context.close()
    assert dialogs == [] and outside == []


@pytest.fixture
def page(browser: sync_api.Browser, ui: Served, server: ScriptedOpenAI) -> Iterator[Page]:
    with opened(browser, ui.url) as tab:
        yield tab


def ask(page: Page, text: str) -> None:
    page.fill("#message textarea", text)
    page.press("#message textarea", "Enter")


def answered(page: Page, turn: int) -> sync_api.Locator:
    """Wait for answer ``turn`` to be final; its chat message."""
    page.wait_for_selector(f"#turn-{turn}.final")
    return page.locator("#chat [data-testid=bot]").last


def pick(page: Page, picker: str, typed: str, option: str) -> None:
    """Search a compare picker by typing, then choose an option."""
    page.locator(f"{picker} input").fill("")
    page.locator(f"{picker} input").press_sequentially(typed)
    page.locator(f"{picker} [role=option]", has_text=option).first.click()


def record_chat(page: Page) -> None:
    """Keep every text the last chat message shows, to see it stream."""
    page.evaluate("""() => { window.__seen = [];
      new MutationObserver(() => {
        const bots = document.querySelectorAll('#chat [data-testid=bot]');
        const text = bots.length ? bots[bots.length - 1].innerText : '';
        if (window.__seen[window.__seen.length - 1] !== text) window.__seen.push(text);
      }).observe(document.body, {subtree: true, childList: true, characterData: true}); }""")


def test_starts_within_ten_seconds(ui: Served) -> None:
    assert ui.startup_s < 10, f"launch() to first page took {ui.startup_s:.1f} s"


def test_cards_come_first_then_the_answer_streams_with_linked_citations(
        page: Page, server: ScriptedOpenAI, tmp_path: Path) -> None:
    gate = threading.Event()

    def reply(body: dict) -> str:
        gate.wait(10)  # the model "thinks" until the test has seen the cards
        spint = source_number(body, "SPINT")
        return f"{SPINT_FACT} [{spint}]. SPINT supports inference on variable-size populations [{spint}]."

    server.reply(reply)
    expect(page.locator("#status")).to_contain_text("test-model")
    expect(page.locator("#status")).to_contain_text("38 papers indexed")
    record_chat(page)
    ask(page, "What is SPINT?")
    expect(page.locator("#turn-1.pending .card .name").first).to_have_text("SPINT")
    expect(page.locator("#chat [data-testid=bot]").last).to_contain_text("Quoted from the abstracts")
    gate.set()
    bot = answered(page, 1)
    assert any(text.endswith("▍") for text in page.evaluate("window.__seen")), "the answer did not stream"
    expect(bot).to_contain_text(SPINT_FACT)
    link = bot.locator("a[href='#src-1-1']").first
    expect(link).to_have_text("[1]")
    card = page.locator("#src-1-1")
    expect(card.locator("mark").first).to_contain_text("Spatial Permutation-Invariant Neural Transformer")
    expect(card.locator(".tag")).to_have_text("cited")
    link.click()
    expect(card).to_be_in_viewport()
    assert page.url.endswith("#src-1-1")
    page.screenshot(path=tmp_path / "answer.png", full_page=True)
    with page.expect_download() as download:
        page.click("#export")
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert exported.startswith("# What is SPINT?") and "## References" in exported and "1. SPINT" in exported
    with page.expect_download() as download:
        page.click("#export-bib")
    bibtex = Path(download.value.path()).read_text(encoding="utf-8")
    key = re.search(r"^@\w+\{([^,]+),\n\s*title = \{\{SPINT\}\}", bibtex, re.MULTILINE)
    assert key and f"[@{key.group(1)}]" in exported  # the markdown cites the BibTeX entry


def test_follow_up_is_rewritten_from_this_conversation(page: Page, server: ScriptedOpenAI) -> None:
    server.reply(lambda body: f"{SPINT_FACT} [{source_number(body, 'SPINT')}].")
    ask(page, "What is SPINT?")
    answered(page, 1)
    server.reply(lambda body: "SPINT was evaluated on three multi-session datasets from the FALCON Benchmark "
                              f"[{source_number(body, 'SPINT')}].")
    ask(page, "What data was it evaluated on?")
    bot = answered(page, 2)
    assert len(server.requests) == 2  # "it" is the paper the last answer cited: named without the model's rewrite
    assert "Question: What data was SPINT evaluated on?" in server.requests[-1]["messages"][-1]["content"]
    expect(bot).to_contain_text("read as “What data was SPINT evaluated on?”")  # the reading answered is shown
    expect(bot).to_contain_text("FALCON Benchmark")
    expect(bot.locator("a[href='#src-2-1']").first).to_have_text("[1]")
    expect(page.locator("#turn-2 .card .name").first).to_have_text("SPINT")
    expect(page.locator("#turn-1 .card")).not_to_have_count(0)  # the first answer keeps its sources
    expect(page.locator("#chat [data-testid=user]")).to_have_count(2)


def test_each_browser_session_has_its_own_conversation(
        page: Page, browser: sync_api.Browser, ui: Served, server: ScriptedOpenAI) -> None:
    server.reply(lambda body: f"{SPINT_FACT} [{source_number(body, 'SPINT')}].")
    ask(page, "What is SPINT?")
    answered(page, 1)
    server.reply(echo)
    with opened(browser, ui.url) as other:
        ask(other, "Which sign language datasets was it evaluated on?")
        answered(other, 1)
        expect(other.locator("#chat [data-testid=user]")).to_have_count(1)
    assert len(server.requests) == 2 and server.requests[-1]["stream"]  # no condense: nothing to follow up on
    assert "Question: Which sign language datasets was it evaluated on?" in server.requests[-1]["messages"][-1]["content"]


def test_topic_summary_from_the_example_button(page: Page, server: ScriptedOpenAI) -> None:
    server.reply(echo)
    page.get_by_role("button", name="Summarize the EEG foundation model papers").click()
    bot = answered(page, 1)
    expect(page.locator("#mode input[value='Topic summary']")).to_be_checked()
    prompt = server.requests[-1]["messages"][-1]["content"]
    assert "Topic: EEG foundation models" in prompt
    names = page.locator("#turn-1 .card .name").all_inner_texts()
    assert "CSBrain" in names and len(names) >= 2
    summarized = re.findall(r"^\[\d+\] (.*) \([^()]*\): ", prompt, re.MULTILINE)
    assert sorted(names) == sorted(summarized)
    expect(bot.locator("a[href^='#src-1-']")).not_to_have_count(0)
    expect(page.locator("#chat [data-testid=user]")).to_contain_text("Topic summary: EEG foundation models")


def test_a_summary_asked_in_ask_mode_is_routed_and_quotes_at_once(page: Page, server: ScriptedOpenAI,
                                                                  request: pytest.FixtureRequest) -> None:
    gate = threading.Event()
    request.addfinalizer(gate.set)  # a failure here must not leave the shared server waiting for the next test

    def reply(body: dict) -> str:
        gate.wait(10)  # the model "thinks" until the test has seen the quoted lines
        return f"These papers pretrain EEG foundation models [{source_number(body, 'REVE')}]."

    server.reply(reply)
    ask(page, "can you give me an overview of the EEG foundation models?")
    pending = page.locator("#chat [data-testid=bot]").last
    expect(pending).to_contain_text("Quoted from the abstracts while the model writes")
    expect(pending).to_contain_text("CSBrain: “")
    gate.set()
    bot = answered(page, 1)
    expect(bot).to_contain_text("Answered as a topic summary")
    expect(bot).to_contain_text("These papers pretrain EEG foundation models")
    expect(bot.locator("li")).not_to_have_count(0)  # one list item per paper
    assert "Topic: EEG foundation models" in server.requests[-1]["messages"][-1]["content"]


def test_a_comparison_asked_in_chat_tabulates_what_it_asks_about(page: Page, server: ScriptedOpenAI) -> None:
    """The table of a comparison routed from chat leads with the aspect the
    message names, and the route note says so."""
    server.set_default(compare_replies({}, "CSBrain and CodeBrain tokenize EEG differently [1][2]."))
    ask(page, "how do CSBrain and CodeBrain differ in tokenizing EEG?")
    bot = answered(page, 1)
    expect(bot).to_contain_text("Answered as a comparison: the message asks to compare two named papers on "
                                "tokenizing EEG")
    rows = bot.locator("table tbody tr")
    expect(rows.first.locator("td").first).to_have_text("tokenizing EEG")
    expect(rows.first).to_contain_text("TFDual-Tokenizer")
    expect(rows).to_have_count(6)  # then the five default aspects


def test_compare_several_papers_table_first_with_quotes_and_exports(page: Page, server: ScriptedOpenAI,
                                                                    request: pytest.FixtureRequest) -> None:
    values_gate, narrative_gate = threading.Event(), threading.Event()
    for gate in (values_gate, narrative_gate):  # a failure must not leave the shared server waiting
        request.addfinalizer(gate.set)
    values = compare_replies({"REVE": {"data": "60,000 hours", "subjects": "25,000 subjects"},
                              "CSBrain": {"data": "16 datasets"}})

    asked: list[str] = []

    def reply(body: dict) -> str:
        text = values(body)
        asked.append(text)
        if not text:  # the narrative comes first: it waits until the test has seen the quoted table
            narrative_gate.wait(10)
        elif len(asked) > 2:  # the first value at once, the rest when the test has seen it in the table
            values_gate.wait(10)
        return text or "REVE is pretrained on over 60,000 hours of EEG data from 92 datasets [2]."

    page.locator("#mode").get_by_text("Compare").click()
    expect(page.locator("#message")).to_be_hidden()
    table = page.locator("#compare-table")
    expect(table).to_be_attached()  # in the page, hidden: showing it is never lost to a stale "hidden"
    expect(table).to_be_hidden()
    server.set_default(reply)
    pick(page, "#pick-papers", "REV", "REVE")
    pick(page, "#pick-papers", "CSBr", "CSBrain")
    pick(page, "#pick-papers", "CodeBr", "CodeBrain")
    page.fill("#aspects textarea", "data, subjects")
    page.click("#compare")
    expect(table.locator(".compare.pending")).to_be_visible()  # quoted at once, before any value
    expect(table.locator("thead th")).to_have_text(["aspect", "REVE", "CSBrain", "CodeBrain"])
    expect(table.locator("tbody th")).to_have_text(["data", "subjects"])
    expect(table.locator(".caption")).to_contain_text("short values follow once the comparison is written")
    expect(page.locator("#chat [data-testid=bot]").last).to_contain_text("Quoted from the abstracts while the model writes")
    narrative_gate.set()  # the narrative streams first, then the values fill in one by one, counted
    expect(table.locator(".compare.pending tbody tr").first.locator("td").first.locator(".value")).to_have_text(
        "60,000 hours")
    expect(table.locator(".caption")).to_contain_text(re.compile(r"adding short values \(1 of \d+\)"))
    expect(page.locator("#chat [data-testid=bot]").last).to_contain_text("REVE is pretrained on over 60,000 hours")
    values_gate.set()
    expect(table.locator(".compare.final")).to_be_visible()
    reve_data = table.locator("tbody tr").first.locator("td").first
    expect(reve_data.locator(".value")).to_have_text("60,000 hours")
    assert "60,000 hours of EEG data" in (reve_data.get_attribute("title") or "")  # the quote on hover
    expect(reve_data.locator("q")).to_be_hidden()
    reve_data.locator("summary").click()  # and on expand
    expect(reve_data.locator("q")).to_contain_text("we pretrain REVE on over 60,000 hours")
    expect(table.locator("tbody tr").nth(1).locator("td").nth(1)).to_have_text("not stated")  # CSBrain subjects
    bot = answered(page, 1)
    expect(bot.locator("th")).to_have_text(["aspect", "REVE", "CSBrain", "CodeBrain"])
    expect(bot).to_contain_text("REVE is pretrained on over 60,000 hours")
    expect(page.locator("#turn-1 .card .name")).to_have_text(["REVE", "CSBrain", "CodeBrain"])
    for n in (1, 2, 3):  # the sentences the table quotes are marked in each card
        expect(page.locator(f"#src-1-{n} mark")).not_to_have_count(0)
    with page.expect_download() as download:
        page.click("#export-csv")
    rows = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert rows[0] == "paper,venue,paper_id,data,data (quote),subjects,subjects (quote)" and len(rows) == 4
    assert rows[1].startswith("REVE,NeurIPS 2025,") and ",25,000 subjects," in rows[1].replace('"', "")
    with page.expect_download() as download:
        page.click("#export")
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert "| aspect | REVE | CSBrain | CodeBrain |" in exported and "**25,000 subjects** — “" in exported
    page.locator("#pick-papers input").fill("zzqx unknown")  # a name that matches nothing: one line, no table
    page.locator("#pick-papers input").press("Enter")
    page.click("#compare")
    expect(page.locator("#chat [data-testid=bot]").last).to_contain_text("No paper matches 'zzqx unknown'")
    expect(table).to_be_hidden()
    page.get_by_role("button", name="New conversation").click()
    expect(page.locator("#export")).to_be_hidden()
    for hidden in (table, page.locator("#export"), page.locator("#export-csv")):
        expect(hidden).to_be_attached()  # hidden in the page, never unmounted (see ui.app.HIDDEN)


def test_the_stylesheet_file_is_applied(page: Page) -> None:
    expect(page.locator("#status .status")).to_have_css("border-radius", "6px")  # a rule of ui/assets/app.css


def test_browse_filters_and_hands_a_paper_to_the_chat(page: Page) -> None:
    page.get_by_role("tab", name="Browse").click()
    grid = page.locator("#browse-table [role=grid]")
    expect(grid).to_have_attribute("aria-rowcount", "39")  # 38 papers and the header
    page.click("#browse-venue input")
    page.locator("#browse-venue [role=option]", has_text="NeurIPS 2025").click()
    expect(grid).to_have_attribute("aria-rowcount", "20")
    page.fill("#browse-words textarea", "EEG pretrain")
    expect(grid).not_to_have_attribute("aria-rowcount", "20")
    reve = page.locator("#browse-table").get_by_role("gridcell", name="REVE", exact=True)
    expect(reve).to_have_count(1)
    reve.click()
    expect(page.locator("#browse-detail .name")).to_have_text("REVE")
    page.click("#add-compare")
    expect(page.locator("#mode input[value='Compare']")).to_be_checked()
    expect(page.locator("#pick-papers")).to_contain_text("REVE · NeurIPS 2025")
    page.get_by_role("tab", name="Browse").click()
    page.locator("#browse-table").get_by_role("gridcell", name="CSBrain", exact=True).click()
    page.click("#add-compare")  # a second paper joins the first
    expect(page.locator("#pick-papers")).to_contain_text("REVE · NeurIPS 2025")
    expect(page.locator("#pick-papers")).to_contain_text("CSBrain · NeurIPS 2025")
    page.get_by_role("tab", name="Browse").click()
    page.click("#ask-about")
    expect(page.locator("#message textarea")).to_have_value('What does "CSBrain" propose?')


def test_markup_in_abstracts_and_answers_stays_inert(
        browser: sync_api.Browser, server: ScriptedOpenAI, embedder: MiniLMEmbedding, tmp_path: Path) -> None:
    records = tmp_path / "xss.jsonl"
    records.write_text(json.dumps(XSS_RECORD) + "\n", encoding="utf-8")
    settings = ui_settings(tmp_path / "storage", server)
    PaperIndex(settings, embedder).ingest(load_papers([records]), progress=False)
    # The markup is its own sentence: the echoed one is supported, so the answer
    # is shown (a reply with nothing supported would be replaced by the refusal).
    server.reply(lambda body: echo(body) + ' Injecto <img src=x onerror="window.__xss=8"> [x](javascript:window.__xss=9)'
                                           " <script>window.__xss=10</script>")
    with serving(settings) as served, opened(browser, served.url) as page:
        ask(page, "What is Injecto?")
        bot = answered(page, 1)
        expect(page.locator("#src-1-1 .abstract")).to_contain_text("<script>window.__xss=1</script>")
        expect(page.locator("#src-1-1 .name")).to_contain_text('<img src=x onerror="window.__xss=5">')
        expect(bot).to_contain_text('<img src=x onerror="window.__xss=8">')
        bot.locator("a[href='#src-1-1']").first.click()
        page.get_by_role("tab", name="Browse").click()
        page.locator("#browse-table [role=gridcell]", has_text="Injecto").first.click()
        expect(page.locator("#browse-detail .abstract")).to_contain_text('<a href="javascript:window.__xss=3">x</a>')
        page.click("#add-compare")
        page.click("#pick-papers input")  # the picker lists the name with its markup
        expect(page.locator("#pick-papers [role=option]").first).to_contain_text("<img src=x")
        page.wait_for_timeout(300)  # time for any injected handler to have fired
        assert page.evaluate("typeof window.__xss") == "undefined"
        assert page.locator("img[src='x'], script:has-text('__xss'), a[href^='javascript:']").count() == 0


def test_llm_down_still_shows_sources_and_an_extractive_answer(page: Page, server: ScriptedOpenAI) -> None:
    server.fail("500", times=10)
    ask(page, "What is SPINT?")
    bot = answered(page, 1)
    expect(bot).to_contain_text("The LLM failed")
    expect(bot).to_contain_text("failed with HTTP 500")
    expect(bot.locator("a[href='#src-1-1']").first).to_have_text("[1]")
    expect(page.locator("#src-1-1 .name")).to_have_text("SPINT")
    expect(page.locator("#status .failed")).to_contain_text("LLM unavailable")
    assert "Traceback" not in page.content()


def test_topics_tab_map_and_a_topic_summary(browser: sync_api.Browser, server: ScriptedOpenAI, seed_settings: Settings,
                                            tmp_path: Path) -> None:
    from assistant import topics

    copy_storage(seed_settings.index.storage, tmp_path / "storage")
    settings = ui_settings(tmp_path / "storage", server)
    topic_map, _ = topics.build(PaperIndex(settings), progress=False)
    topics.save(topic_map, topics.topics_path(settings.index.resolved_storage(), None))
    _, biggest = max(((a, t) for a in topic_map.areas for t in a.topics), key=lambda pair: pair[1].size)
    server.set_default(echo)
    with serving(settings) as served, opened(browser, served.url) as page:
        page.get_by_role("tab", name="Topics").click()
        expect(page.locator("#topic-note")).to_contain_text("38 papers in")
        # Gradio loads Plotly's 3 MB bundle on first use: slow on a busy machine.
        expect(page.locator("#topic-map .js-plotly-plot")).to_have_count(1, timeout=60_000)
        expect(page.locator("#topic-map .legend .traces")).to_have_count(len(topic_map.areas))
        expect(page.locator("#topic-map canvas").first).to_be_attached()  # scattergl draws with WebGL
        page.locator("#topic-table").get_by_role("gridcell", name=biggest.topic_id, exact=True).click()
        expect(page.locator("#topic-papers li")).to_have_count(biggest.size)
        page.wait_for_selector("#topic-sources #turn-0.final")
        expect(page.locator("#topic-sources .card")).to_have_count(min(12, biggest.size))
        expect(page.locator("#topic-summary a[href^='#src-0-']")).not_to_have_count(0)
        prompt = server.requests[-1]["messages"][-1]["content"]
        assert f"Topic: {biggest.label}" in prompt
        page.screenshot(path=tmp_path / "topics.png", full_page=True)
        page.click("#compare-topic")
        expect(page.locator("#mode input[value='Compare']")).to_be_checked()
        by_id = {p.paper_id: p for p in PaperIndex(settings).papers()}
        names = [by_id[pid].name for pid in biggest.papers[:8]]
        for name in names:
            expect(page.locator("#pick-papers")).to_contain_text(name)
        assert "Traceback" not in page.content()


def test_an_ingest_shows_in_browse_and_answers_without_a_restart(
        browser: sync_api.Browser, server: ScriptedOpenAI, seed_settings: Settings, embedder: MiniLMEmbedding,
        tmp_path: Path) -> None:
    from .conftest import corpus_records, write_jsonl

    copy_storage(seed_settings.index.storage, tmp_path / "storage")
    settings = ui_settings(tmp_path / "storage", server)
    server.set_default(echo)
    record = next(r for r in corpus_records(40) if ":" in r["title"])
    name = record["title"].split(":")[0]
    with serving(settings) as served, opened(browser, served.url) as page:
        ask(page, "What is SPINT?")
        answered(page, 1)
        page.get_by_role("tab", name="Browse").click()
        grid = page.locator("#browse-table [role=grid]")
        expect(grid).to_have_attribute("aria-rowcount", "39")
        PaperIndex(settings, embedder).ingest(load_papers([write_jsonl(tmp_path / "new.jsonl", [record])]),
                                              progress=False)
        page.fill("#browse-words textarea", name)
        expect(page.locator("#browse-table").get_by_role("gridcell", name=record["title"], exact=True)).to_have_count(1)
        page.fill("#browse-words textarea", "")
        expect(grid).to_have_attribute("aria-rowcount", "40")
        page.get_by_role("tab", name="Chat").click()
        ask(page, f"What is {name}?")
        answered(page, 2)
        expect(page.locator("#turn-2 .card .name").first).to_have_text(record["title"])
        expect(page.locator("#chat [data-testid=user]")).to_have_count(2)  # the session was kept
        expect(page.locator("#status")).to_contain_text("39 papers indexed")


def test_a_session_keeps_only_its_last_export_and_none_once_closed(assistant, server: ScriptedOpenAI) -> None:
    from assistant.answer import Final
    from ui.app import Exports, Session, close_session

    server.set_default(echo)
    exports, session = Exports(), Session(assistant.conversation())
    written = []
    for question in ("What is SPINT?", "What is REVE?"):
        result = [e for e in assistant.ask(question) if isinstance(e, Final)][-1].result
        markdown, bibtex, table = exports.write(result, assistant.index.corpus.by_id, session)
        assert markdown.read_text(encoding="utf-8").strip() and bibtex.exists() and table.exists()
        written.append(markdown.parent)
    assert not written[0].exists() and written[1].exists()
    close_session(session)
    assert not written[1].exists()


# -- several users at once: a model that takes one request at a time ----------------
def test_second_tab_waits_its_turn_and_a_closed_tab_frees_it(browser: sync_api.Browser, seed_settings: Settings,
                                                             server: ScriptedOpenAI) -> None:
    """The second tab says how many are ahead, then gets its answer; the
    status line stays green; a newer question in a tab stops its previous
    one; a closed tab's answer is cut off and its place given up."""
    thinking = threading.Event()

    def reply(body: dict) -> str:
        if "SPINT" in body["messages"][-1]["content"]:
            thinking.wait(20)  # the first tab's answer holds the model until the test lets it go
        return (echo(body) + " ") * 3

    server.set_default(reply)
    server.delay = 0.05
    settings = ui_settings(seed_settings.index.storage, server).with_(max_concurrent_requests=1,
                                                                       request_timeout=60.0)
    with serving(settings) as ui, opened(browser, ui.url) as first, opened(browser, ui.url) as second:
        ask(first, "What is SPINT?")
        expect(first.locator("#chat [data-testid=bot]").last).to_contain_text("Quoted from the abstracts")
        ask(second, "What is HetSyn?")
        expect(second.locator("#chat [data-testid=bot]").last).to_contain_text("Waiting for the model (1 ahead)")
        expect(second.locator("#status .ready")).to_be_visible()
        ask(second, "What is BigMaQ?")  # a newer question stops the one waiting
        expect(second.locator("#chat [data-testid=bot]").first).to_contain_text("Stopped: a newer question")
        expect(second.locator("#chat [data-testid=bot]").last).to_contain_text("Waiting for the model (1 ahead)")
        first.context.close()  # the tab holding the model goes away
        thinking.set()
        second.wait_for_selector("#turn-1.final", timeout=30_000)
        expect(second.locator("#turn-1 .card .name").first).to_have_text("BigMaQ")  # its own question's answer
        expect(second.locator("#chat [data-testid=bot]").last).to_contain_text("[1]")
        expect(second.locator("#chat [data-testid=bot]").last).not_to_contain_text("The LLM failed")
        expect(second.locator("#status .ready")).to_be_visible()
    prompts = [r["messages"][-1]["content"] for r in server.requests]
    assert not any("HetSyn" in p.split("Question:")[-1] for p in prompts)  # the stopped question never reached it
    assert server.disconnects >= 1  # the closed tab's stream was cut, not written to the end
