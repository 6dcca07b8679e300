"""HypoFuzz and the plugin's Hypothesis profiles from any directory (issue 29).

Everything runs as a user would: ``hypothesis fuzz`` and ``pytest`` in an empty
temporary directory outside the repository, in real subprocesses, stopped with a
real SIGINT.  ``HYPOTHESIS_PROFILE`` is removed from their environment (CI sets
it), so what they show is the plugin's own choice.
"""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ntpcheck.properties import PAPERS, paper

pytest.importorskip("hypofuzz", reason="hypofuzz is not installed (pip install -e '.[test]')")

#: ``--ntpcheck`` collects every registered paper's claims.
CLAIMS = [c for name in PAPERS for c in paper(name).claims]
FINDINGS = sorted(f"claim[{c.key}]" for c in CLAIMS if c.finding is not None)
FUZZABLE = sorted(f"claim[{c.key}]" for c in CLAIMS if c.finding is None)
BIN = Path(sys.executable).parent


#: Variables that choose a profile: removed, so that each test sets the ones it means
#: (Hypothesis itself loads its ``ci`` profile when any of the CI ones is set).
_CHOOSERS = ("HYPOTHESIS_PROFILE", "NTPCHECK_REDIS_URL", "CI", "TF_BUILD", "BUILDKITE", "CIRCLECI", "CIRRUS_CI",
             "CODEBUILD_BUILD_ID", "GITHUB_ACTIONS", "GITLAB_CI", "HEROKU_TEST_RUN_ID", "TEAMCITY_VERSION")


def _env(**extra: str) -> dict:
    """The environment of a child pytest: without the profile choosers, nor the xdist worker's
    variables (a child under ``pytest -n 2`` would think itself a worker: pytest-benchmark warns)."""
    keep = {k: v for k, v in os.environ.items() if k not in _CHOOSERS and not k.startswith("PYTEST_XDIST")}
    return {**keep, **extra}


def _run(cwd: Path, argv: list, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env or _env(), timeout=timeout)


def _pytest(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return _run(cwd, [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], env)


#: HypoFuzz's own collection (what ``hypothesis fuzz`` runs first), printed as JSON: the
#: tests it fuzzes with their database keys, and the tests it refuses with its reason.
COLLECT = textwrap.dedent("""
    import json, sys
    from hypofuzz import detection
    detection._in_hypofuzz_run = True  # as `hypothesis fuzz` sets it
    from hypofuzz.collection import collect_tests
    out = {}
    for profile in ("quick", "thorough"):
        r = collect_tests(["--ntpcheck", "-p", "no:cacheprovider", "--ntp-profile", profile])
        out[profile] = {"fuzzed": {t.nodeid: t.database_key.hex() for t in r.fuzz_targets},
                        "refused": {k: v["status_reason"] for k, v in r.not_collected.items()}}

    import pytest
    from hypothesis.internal.reflection import function_digest

    class Keys:  # the keys a plain pytest run uses (HypoFuzz's collection not involved)
        def pytest_collection_finish(self, session):
            out["pytest"] = {i.nodeid: function_digest(i.obj.hypothesis.inner_test).hex()
                             for i in session.items if hasattr(i.obj, "hypothesis")}

    pytest.main(["--ntpcheck", "-p", "no:cacheprovider", "--collect-only", "-q"], plugins=[Keys()])
    print("RESULT" + json.dumps(out))
""")


def _name(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[1]


def test_hypofuzz_collects_every_claim_but_the_findings(tmp_path):
    """Every claim test is a fuzz target except the findings (strict xfails, which HypoFuzz
    refuses as ``xfail``); each target's database key differs by claim and by profile, and
    is the key a plain ``pytest --ntpcheck`` run uses."""
    r = _run(tmp_path, [sys.executable, "-c", COLLECT], _env(CI="true"))  # under HypoFuzz, CI does not mean `ci`
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    result = json.loads(r.stdout[r.stdout.index("RESULT") + len("RESULT"):])
    quick, thorough = result["quick"], result["thorough"]
    assert sorted(map(_name, quick["fuzzed"])) == FUZZABLE
    assert {_name(k): v for k, v in quick["refused"].items()} == {name: "xfail" for name in FINDINGS}
    assert len(set(quick["fuzzed"].values())) == len(FUZZABLE)  # one key per claim
    assert all(quick["fuzzed"][k] != thorough["fuzzed"][k] for k in quick["fuzzed"])  # and per profile
    # pytest --ntpcheck replays what HypoFuzz saved: the same key for the same test
    assert all(result["pytest"][k] == key for k, key in quick["fuzzed"].items())


def test_hypothesis_fuzz_from_an_empty_directory(tmp_path):
    """``hypothesis fuzz -- --ntpcheck`` from an empty directory fuzzes every non-finding
    claim and saves to the local example database there; stopped by SIGINT after it began, as a
    terminal's Ctrl-C does (the whole process group): HypoFuzz's "Aborted!", and no worker's traceback
    (73 lines before, issue 42)."""
    out = (tmp_path / "out.txt").open("w+")
    argv = [str(BIN / "hypothesis"), "fuzz", "-n", "1", "--no-dashboard", "--", "--ntpcheck", "-p", "no:cacheprovider"]
    proc = subprocess.Popen(argv, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env=_env(CI="true"),
                            start_new_session=True)
    db = tmp_path / ".hypothesis" / "examples"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not _fuzzing_began(db):
            time.sleep(0.5)
        time.sleep(2)  # fuzzing a little: no crash on the first inputs
        still_running = proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = Path(out.name).read_text()
    assert still_running, text[-3000:]
    assert f"using 1 process to fuzz {len(FUZZABLE)} tests (skipped {len(FINDINGS)} tests)" in text, text[-3000:]
    assert _fuzzing_began(db), text[-3000:]
    assert "Traceback" not in text and proc.returncode != 0, text[-3000:]


def _fuzzing_began(db: Path) -> bool:
    """HypoFuzz saved the key of a test it started fuzzing to the database in ``db``."""
    if not db.is_dir():
        return False
    from hypothesis.database import DirectoryBasedExampleDatabase

    return any(True for _ in DirectoryBasedExampleDatabase(str(db)).fetch(b"hypofuzz.test_keys"))


# --- the profiles from any directory --------------------------------------------------------

def test_pytest_ntpcheck_from_an_empty_directory_uses_the_dev_profile(tmp_path):
    r = _pytest(tmp_path, "--ntpcheck", "-q", "--ntp-claims", "Ex. 1", env=_env())
    assert r.returncode == 0 and re.search(r"^2 passed", r.stdout, re.M), r.stdout + r.stderr
    assert (tmp_path / ".hypothesis" / "examples").is_dir()  # dev's local directory database, here
    r = _pytest(tmp_path, "--ntpcheck", "-v", "--collect-only", "--ntp-claims", "Ex. 1", env=_env())
    assert "hypothesis profile 'dev' -> deadline=None, max_examples=40" in r.stdout, r.stdout


@pytest.mark.parametrize("env, shown", [
    ({"CI": "true"}, "hypothesis profile 'ci' -> "),
    ({"CI": "true", "HYPOTHESIS_PROFILE": "thorough"}, "hypothesis profile 'thorough' -> "),
])
def test_ci_chooses_ci_and_hypothesis_profile_overrides(tmp_path, env, shown):
    r = _pytest(tmp_path, "--ntpcheck", "-v", "--collect-only", "--ntp-claims", "Ex. 1", env=_env(**env))
    assert r.returncode == 0 and shown in r.stdout, r.stdout + r.stderr


MINE = """
from hypothesis import settings
from hypothesis.errors import InvalidArgument
import pytest

def test_profiles_untouched():
    assert settings.get_current_profile_name() == "default"
    with pytest.raises(InvalidArgument):
        settings.get_profile("dev")
"""

CLAIM_FILE = """
from ntpcheck.properties.framework import conjecture, holds
from ntpcheck.strategies import realizable_datasets

@conjecture("Conj. T", data=realizable_datasets(max_vocab=3, max_len=3, max_samples=3))
def test_trivial(ev):
    return holds(1.0, "always")
"""


def test_profiles_untouched_unless_asked(tmp_path):
    """Installed everywhere, the plugin loads no profile in a run that does not ask for
    ntpcheck, even with a test file holding claims beside the user's own tests."""
    (tmp_path / "test_mine.py").write_text(MINE)
    (tmp_path / "test_claim.py").write_text(CLAIM_FILE)
    r = _pytest(tmp_path, "-q", "-rA", env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASSED test_mine.py::test_profiles_untouched" in r.stdout
    assert "PASSED test_claim.py::test_trivial::claim[conj-t]" in r.stdout, r.stdout


def test_unrelated_run_imports_no_claims(tmp_path):
    """The plugin costs an unrelated run nothing: no claim, strategy or core module is imported."""
    (tmp_path / "test_mine.py").write_text(
        "import sys\n\ndef test_light():\n"
        "    heavy = ('ntpcheck.properties', 'ntpcheck.strategies', 'ntpcheck.common.data', 'numba')\n"
        "    assert not [m for m in sys.modules if m.startswith(heavy)]\n")
    r = _pytest(tmp_path, "-q")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_profile_chosen_by_the_users_conftest_is_kept(tmp_path):
    (tmp_path / "conftest.py").write_text("from hypothesis import settings\n"
                                          "settings.register_profile('mine', max_examples=7)\nsettings.load_profile('mine')\n")
    r = _pytest(tmp_path, "--ntpcheck", "-v", "--collect-only", "--ntp-claims", "Ex. 1", env=_env())
    assert "hypothesis profile 'mine' -> max_examples=7" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("env, message", [
    ({"HYPOTHESIS_PROFILE": "nope"}, "HYPOTHESIS_PROFILE='nope' is not a registered Hypothesis profile"),
    ({"NTPCHECK_REDIS_URL": "redis://127.0.0.1:1/0"}, "NTPCHECK_REDIS_URL='redis://127.0.0.1:1/0': cannot use"),
    ({"NTPCHECK_REDIS_URL": "http://nowhere"}, "NTPCHECK_REDIS_URL='http://nowhere': cannot use"),
])
def test_bad_profile_environment_is_one_line(tmp_path, env, message):
    pytest.importorskip("redis")
    r = _pytest(tmp_path, "--ntpcheck", "--collect-only", env=_env(**env))
    _one_line_usage_error(r, message)


# --- option traps -----------------------------------------------------------------------------

@pytest.mark.parametrize("option", [["--ntp-claims", "Cor. 1"], ["--ntp-paper", "huang2024"], ["--ntp-profile", "default"],
                                    ["--ntp-dataset", "d.txt"], ["--ntp-no-pinned"]])
def test_ntp_options_without_ntpcheck_say_add_it(tmp_path, option):
    (tmp_path / "d.txt").write_text("A B -> C\n")
    r = _pytest(tmp_path, "--collect-only", "-q", *option)
    _one_line_usage_error(r, f"ntpcheck: {option[0]} applies to claims")
    assert "add --ntpcheck" in r.stderr


@pytest.mark.parametrize("spec", ["", " ", " , "])
def test_empty_ntp_claims_is_refused(tmp_path, spec):
    r = _pytest(tmp_path, "--ntpcheck", "--collect-only", "-q", "--ntp-claims", spec)
    _one_line_usage_error(r, "names no claim")


def test_ntp_claims_with_a_claim_file_needs_no_ntpcheck(tmp_path):
    """With a test file of claims collected, ``--ntp-claims`` selects among them; a paper's
    claim named there says to add ``--ntpcheck``."""
    (tmp_path / "test_claim.py").write_text(CLAIM_FILE)
    r = _pytest(tmp_path, "--collect-only", "-q", "--ntp-claims", "Conj. T")
    assert r.returncode == 0 and "test_claim.py::test_trivial::claim[conj-t]" in r.stdout, r.stdout + r.stderr
    r = _pytest(tmp_path, "--collect-only", "-q", "--ntp-claims", "Cor. 1")
    _one_line_usage_error(r, "unknown claim 'Cor. 1'")
    assert "add --ntpcheck" in r.stderr


def _one_line_usage_error(r: subprocess.CompletedProcess, message: str) -> None:
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 4 and len(lines) == 1 and message in lines[0], r.stdout[-2000:] + r.stderr
    assert "Traceback" not in r.stderr + r.stdout
