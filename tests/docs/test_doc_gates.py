"""The doc gates in ``scripts/`` pass on the repository and catch each kind of breakage.

Every breakage is made in a copy of the Markdown tree under a temporary folder; each
gate runs as a subprocess, as CI runs it, and must exit 1 naming the file and line.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
GATES = (
    "verify-rfc-classification",
    "verify-doc-refs",
    "verify-md-links",
    "verify-doc-pairs",
)
RFC_FOLDER = Path("docs", "rfc", "implemented", "feature")
RFC_NAME = "2026-11-29-cassette-rewrite-and-replay-endings"
# Built in pieces so that the doc-reference gate does not read this file as naming it.
MISSING_GUIDE = "docs/" + "no-such-guide.md"


def load(name: str) -> ModuleType:
    """Import a gate script (file names with ``-`` are not importable by name)."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), SCRIPTS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(gate: str, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPTS / f"{gate}.py"), str(root)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def fails_with(gate: str, root: Path, location: str, words: str) -> None:
    """The gate exits 1 and prints a problem at ``location`` (``path:line``) with ``words``."""
    result = run(gate, root)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    prefix = location if location.endswith(":") else f"{location}: "
    hits = [line for line in lines if line.startswith(prefix) and words in line]
    assert hits, f"no problem at {location} mentioning {words!r} in:\n{result.stdout}"


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def append(path: Path, text: str) -> int:
    """Append lines to a file; the line number of the first one."""
    content = path.read_text(encoding="utf-8")
    if not content.endswith("\n"):
        content += "\n"
    first = len(content.splitlines()) + 1
    path.write_text(content + text, encoding="utf-8")
    return first


@pytest.fixture(scope="module")
def links_gate() -> ModuleType:
    return load("verify-md-links")


@pytest.fixture
def tree(tmp_path: Path, links_gate: ModuleType) -> Path:
    """A copy of every Markdown file, every file they link to, and one Python module."""
    common = load("_docs_common")
    copy = tmp_path / "repo"
    for source in common.markdown_files(ROOT):
        target = copy / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        for _, link in links_gate.links(common.read_text(source)):
            linked, _ = links_gate.resolve(ROOT, source, link)
            if ROOT not in linked.resolve().parents or not linked.exists():
                continue
            mirrored = copy / linked.resolve().relative_to(ROOT)
            if linked.is_dir():
                mirrored.mkdir(parents=True, exist_ok=True)
            elif not mirrored.exists():
                mirrored.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(linked, mirrored)
    module = copy / "src" / "example.py"
    module.parent.mkdir(parents=True)
    module.write_text('"""Error codes are listed in docs/errors.md."""\n', encoding="utf-8")
    return copy


@pytest.mark.parametrize("gate", GATES)
def test_gate_passes_on_the_repository(gate: str) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{gate}.py")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        cwd=ROOT / "docs",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"{gate}: "), result.stdout
    assert len(result.stdout.splitlines()) == 1


@pytest.mark.parametrize("gate", GATES)
def test_gate_passes_on_an_unbroken_copy(gate: str, tree: Path) -> None:
    result = run(gate, tree)
    assert result.returncode == 0, result.stdout + result.stderr


def test_rfc_in_an_unknown_lifecycle_folder(tree: Path) -> None:
    moved = Path("docs", "rfc", "adopted", "feature", f"{RFC_NAME}.md")
    (tree / moved).parent.mkdir(parents=True)
    (tree / RFC_FOLDER / f"{RFC_NAME}.md").rename(tree / moved)
    fails_with("verify-rfc-classification", tree, f"{moved.as_posix()}:1", "'adopted'")


def test_rfc_in_an_unknown_class_folder(tree: Path) -> None:
    moved = Path("docs", "rfc", "implemented", "features", f"{RFC_NAME}.md")
    (tree / moved).parent.mkdir(parents=True)
    (tree / RFC_FOLDER / f"{RFC_NAME}.md").rename(tree / moved)
    fails_with("verify-rfc-classification", tree, f"{moved.as_posix()}:1", "'features'")


def test_rfc_in_the_wrong_lifecycle_for_its_index_row(tree: Path) -> None:
    moved = Path("docs", "rfc", "rejected", "feature", f"{RFC_NAME}.md")
    (tree / moved).parent.mkdir(parents=True)
    (tree / RFC_FOLDER / f"{RFC_NAME}.md").rename(tree / moved)
    fails_with("verify-rfc-classification", tree, f"{moved.as_posix()}:1", "not listed")


def test_rfc_without_a_date(tree: Path) -> None:
    undated = RFC_FOLDER / "cassette-rewrite.md"
    (tree / RFC_FOLDER / f"{RFC_NAME}.md").rename(tree / undated)
    fails_with("verify-rfc-classification", tree, f"{undated.as_posix()}:1", "yyyy-mm-dd")


def test_rfc_with_an_impossible_date(tree: Path) -> None:
    bad = RFC_FOLDER / "2026-02-30-cassette-rewrite.md"
    (tree / RFC_FOLDER / f"{RFC_NAME}.md").rename(tree / bad)
    fails_with("verify-rfc-classification", tree, f"{bad.as_posix()}:1", "impossible date")


def test_missing_index_row(tree: Path) -> None:
    index = tree / "docs" / "rfc" / "README.md"
    kept = [line for line in index.read_text(encoding="utf-8").splitlines() if RFC_NAME not in line]
    index.write_text("\n".join(kept) + "\n", encoding="utf-8")
    location = f"{(RFC_FOLDER / RFC_NAME).as_posix()}.md:1"
    fails_with("verify-rfc-classification", tree, location, "not listed in README.md")


def test_index_row_for_a_missing_file(tree: Path) -> None:
    index = tree / "docs" / "rfc" / "README.md"
    ghost = "implemented/feature/2026-11-30-ghost.md"
    line = append(index, f"| [A decision never written]({ghost}) | 2026-11-30 |\n")
    fails_with("verify-rfc-classification", tree, f"docs/rfc/README.md:{line}", "does not exist")


def test_chinese_index_that_does_not_mirror(tree: Path) -> None:
    index = tree / "docs" / "rfc" / "README.zh.md"
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace(f"{RFC_NAME}.zh.md", f"{RFC_NAME}.md"), encoding="utf-8")
    fails_with("verify-rfc-classification", tree, "docs/rfc/README.zh.md:", "does not mirror")


def test_dead_relative_link(tree: Path) -> None:
    line = append(tree / "docs" / "errors.md", "See [the guide](no-such-guide.md).\n")
    fails_with("verify-md-links", tree, f"docs/errors.md:{line}", "no-such-guide.md")


def test_dead_anchor_in_another_file(tree: Path) -> None:
    line = append(tree / "README.md", "Read [this](docs/errors.md#no-such-section).\n")
    fails_with("verify-md-links", tree, f"README.md:{line}", "#no-such-section")


def test_dead_anchor_in_the_same_file(tree: Path) -> None:
    line = append(tree / "docs" / "tools.zh.md", "见[上文](#不存在的标题)。\n")
    fails_with("verify-md-links", tree, f"docs/tools.zh.md:{line}", "#不存在的标题")


def test_live_anchors_by_github_rules(tree: Path) -> None:
    guide = tree / "docs" / "anchors.md"
    guide.write_text(
        "# 设计决策\uff08RFC\uff09\n\n## `replay` and `show --html`\n\n## Notes\n\n## Notes\n\n"
        '<a id="custom"></a>\n\n'
        "[a](#设计决策rfc) [b](#replay-and-show---html) [c](#notes-1) [d](#custom)\n"
        "`[not a link](#nowhere)`\n\n```text\n[not a link](#nowhere)\n```\n",
        encoding="utf-8",
    )
    shutil.copyfile(guide, tree / "docs" / "anchors.zh.md")
    result = run("verify-md-links", tree)
    assert result.returncode == 0, result.stdout


def test_missing_doc_reference_in_python(tree: Path) -> None:
    module = tree / "src" / "example.py"
    line = append(module, f'HELP = "see {MISSING_GUIDE} for the details"\n')
    location = f"src/example.py:{line}"
    fails_with("verify-doc-refs", tree, location, f"{MISSING_GUIDE} does not exist")


def test_chinese_doc_with_a_heading_missing(tree: Path) -> None:
    common = load("_docs_common")
    chinese = tree / "docs" / "errors.zh.md"
    lines = chinese.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0].startswith("# ")
    chinese.write_text("".join(lines[1:]), encoding="utf-8")
    # The Chinese file's first heading is an h2 where the English file has its h1.
    first = common.headings(chinese.read_text(encoding="utf-8"))[0][1]
    fails_with("verify-doc-pairs", tree, f"docs/errors.zh.md:{first}", "errors.md has h1")


def test_code_block_that_differs_between_the_pair(tree: Path) -> None:
    english = tree / "docs" / "errors.md"
    chinese = tree / "docs" / "errors.zh.md"
    text = english.read_text(encoding="utf-8")
    opening = text.splitlines().index("```python") + 1
    block_start = chinese.read_text(encoding="utf-8").index("```python\n")
    zh = chinese.read_text(encoding="utf-8")
    changed = zh[:block_start] + "```python\n# 改过\n" + zh[block_start + len("```python\n") :]
    chinese.write_text(changed, encoding="utf-8")
    fails_with("verify-doc-pairs", tree, f"docs/errors.md:{opening}", "byte-identical")


def test_missing_and_orphan_translations(tree: Path) -> None:
    (tree / "docs" / "tools.zh.md").unlink()
    orphan = Path("docs", "extra.zh.md")
    (tree / orphan).write_text("# 多余\n", encoding="utf-8")
    fails_with("verify-doc-pairs", tree, "docs/tools.md:1", "no Chinese counterpart")
    fails_with("verify-doc-pairs", tree, f"{orphan.as_posix()}:1", "orphan")


def test_slugs_follow_github(links_gate: ModuleType) -> None:
    common = load("_docs_common")
    assert common.github_slug("Options and ini keys") == "options-and-ini-keys"
    assert common.github_slug("`--hc-record-mode=once`") == "--hc-record-modeonce"
    assert common.github_slug("第一次回放\uff1a内置的 cassette") == "第一次回放内置的-cassette"
    assert common.github_slug("[Link](x.md) text!") == "link-text"


def test_bad_root_is_a_usage_error(tmp_path: Path) -> None:
    result = run("verify-md-links", tmp_path / "absent")
    assert result.returncode == 2
    assert "is not a directory" in result.stderr


def test_translation_required_only_for_docs_and_the_readmes(tree: Path) -> None:
    notes = tree / "fixtures" / "NOTICE.md"
    notes.parent.mkdir(parents=True, exist_ok=True)
    notes.write_text("# Notice\n", encoding="utf-8")
    assert run("verify-doc-pairs", tree).returncode == 0
    (tree / "conformance" / "README.zh.md").unlink()
    fails_with("verify-doc-pairs", tree, "conformance/README.md:1", "no Chinese counterpart")
