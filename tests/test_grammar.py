"""One command grammar: every command that produces a result takes -o PATH, --report-dir DIR,
--json and --no-progress (and -j/--scheduler where it runs tasks), old spellings still parse with a
one-line note, the exit codes are defined once and documented where users look, and every
`mechlib COMMAND --flag` the README shows exists."""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

import pytest

from mechlib.cli import COMMANDS, build_parser, main
from mechlib.errors import ExitCode, exit_codes_text

README = Path(__file__).resolve().parent.parent / "README.md"
FIXTURES = Path(__file__).parent / "fixtures"

#: The commands that produce a result, and those that run tasks on the engine.
PRODUCERS = ("audit", "verify", "school-planning", "blackbox", "sweep", "prove-universal")
ENGINE = ("verify", "sweep", "prove-universal")


def _flags(command: str) -> dict[str, argparse.Action]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices[command]._option_string_actions)


@pytest.mark.parametrize("command", PRODUCERS)
def test_every_producing_command_has_the_shared_flags(command: str) -> None:
    flags = _flags(command)
    for flag in ("-o", "--output", "--report-dir", "--json", "--no-progress"):
        assert flag in flags, f"{command} has no {flag}"
    for flag in ("-j", "--jobs", "--scheduler", "--connect-timeout", "--worker-grace"):
        assert (flag in flags) == (command in ENGINE), (command, flag)


def test_a_flag_is_defined_once() -> None:
    """The shared flags have one help text everywhere: they come from mechlib/cli/options.py."""
    for flag in ("--json", "--no-progress", "--scheduler", "--connect-timeout"):
        helps = {_flags(c)[flag].help.split(" ")[0] for c in PRODUCERS if flag in _flags(c)}  # type: ignore[union-attr]
        assert len(helps) == 1, (flag, helps)


@pytest.mark.parametrize(("command", "old"), [("verify", "--reports"), ("school-planning", "--reports")])
def test_old_spellings_parse_with_a_one_line_note(
    command: str, old: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = build_parser().parse_args([command, old, str(tmp_path)])
    assert args.report_dir == str(tmp_path)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{old} is deprecated" in err and "--report-dir" in err


def test_sweeps_old_output_directory_still_works(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[[audits]]\nsources = ["{FIXTURES / "gs_appendix_b.json"}"]\n')
    assert main(["sweep", str(manifest), "-o", str(tmp_path / "old"), "-j", "1", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "-o DIR is deprecated" in err and (tmp_path / "old" / "sweep.json").is_file()
    assert (tmp_path / "old" / "sweep.html").is_file() and (tmp_path / "old" / "sweep.md").is_file()
    result = tmp_path / "result.json"
    assert main(["sweep", str(manifest), "--report-dir", str(tmp_path / "old"), "-o", str(result), "-j", "1"]) == 0
    assert json.loads(result.read_text())["tasks"]["from_cache"] == 1
    assert "deprecated" not in capsys.readouterr().err


def test_exit_codes_are_documented_where_users_look(capsys: pytest.CaptureFixture[str]) -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 130]
    text = exit_codes_text()
    assert main(["--help"]) == 0
    assert " ".join(text.split()) in " ".join(capsys.readouterr().out.split())
    assert main(["explain", "exit-codes"]) == 0
    assert "3 undecided" in capsys.readouterr().out
    readme = " ".join(README.read_text().split())
    for code in ExitCode:
        assert f"{code.value} {code.name.lower().replace('_', ' ')}" in readme, code


def test_prove_universal_writes_its_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "universal.json"
    argv = ["prove-universal", "1", "-j", "1", "--json", "-o", str(out), "--report-dir", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    printed, err = capsys.readouterr()
    assert json.loads(printed)["verdict"] == "PROVED" and err == ""
    assert "PROVED" in (tmp_path / "universal-n1.md").read_text() and (tmp_path / "universal-n1.html").is_file()
    from mechlib.schemas import validate

    validate(json.loads(printed), "mechlib.universal/1")  # --json: the verdict and the counts
    validate(json.loads(out.read_text()), "mechlib.universal/2")  # -o: the certificate mechlib check re-verifies
    assert main(["check", str(out)]) == 0


def _readme_commands() -> list[tuple[str, str]]:
    """(command, flag) for every `mechlib COMMAND … --flag` in the README's code blocks and inline code."""
    text = README.read_text()
    snippets = re.findall(r"```.*?```", text, flags=re.S) + re.findall(r"`([^`\n]*mechlib [^`\n]*)`", text)
    found = []
    for snippet in snippets:
        for line in snippet.splitlines():
            match = re.search(r"mechlib ([a-z-]+)(.*)", line.split("#")[0])
            if match and match.group(1) in COMMANDS:
                found += [
                    (match.group(1), flag) for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", match.group(2))
                ]
    return sorted(set(found))


def test_every_flag_the_readme_shows_exists() -> None:
    shown = _readme_commands()
    assert len(shown) >= 5  # the README's command examples (the rest of the commands are in the docs)
    missing = [(command, flag) for command, flag in shown if flag not in _flags(command)]
    assert not missing, missing


def test_progress_lines_count_every_result_once(capsys: pytest.CaptureFixture[str]) -> None:
    """verify --mutants --only GS-T2 printed "1/3" three times: a claim's mutants share its ID."""
    from types import SimpleNamespace

    from mechlib.verify import _Reporter

    reporter = _Reporter(3, "lines")
    for _ in range(3):
        claim = SimpleNamespace(id="GS-T2")
        reporter.done(SimpleNamespace(claim=claim, outcome=SimpleNamespace(verdict=SimpleNamespace(value="REFUTED")),
                                      seconds=0.0))  # fmt: skip
    shown = [line.split()[1] for line in capsys.readouterr().err.splitlines()]
    assert shown == ["1/3", "2/3", "3/3"]


def test_verify_leaves_no_hypothesis_directory_in_the_users_directory(tmp_path: Path) -> None:
    import subprocess
    import sys

    argv = [sys.executable, "-m", "mechlib.cli", "verify", "--only", "GS-T2", "-j", "1", "--report-dir", "out"]
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    written = done.stdout.splitlines()[-1].split("Reports: ")[1].split(", ")
    assert written == [f"out/verify.partial.{ext}" for ext in ("json", "md", "html")]  # every file it wrote
    assert all((tmp_path / name).is_file() for name in written)


def test_reports_print_the_real_recheck_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = str(FIXTURES / "gs_appendix_b.json")
    assert main(["audit", source, "--report-dir", str(tmp_path)]) == 0
    certificate = tmp_path / "gs_appendix_b.audit.json"
    for page in ("md", "html"):
        assert f"mechlib check {certificate} {source}" in (tmp_path / f"gs_appendix_b.audit.{page}").read_text()
    assert "CLAIMS.md" not in (tmp_path / "gs_appendix_b.audit.html").read_text()  # not in a clone
    capsys.readouterr()


def test_an_interrupt_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(COMMANDS["explain"], "run", interrupted)
    assert main(["explain"]) == 130 and ExitCode.INTERRUPTED.value == 130
    assert capsys.readouterr().err == "mechlib: interrupted\n"


def test_the_glossary_gives_the_standard_users_limit_the_audit_applies() -> None:
    from mechlib.audit.whitebox import USERS_MAX_N
    from mechlib.glossary import lookup

    term = lookup("standard users")
    assert term is not None and f"up to n = {USERS_MAX_N}" in term.text
