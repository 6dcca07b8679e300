"""Open a report's ``report.html`` in a real headless Chromium (Debian's ``chromium``): does the page
load, does every image resolve, and screenshots of its top and of one claim.

Used by ``tests/app/test_report_figures.py`` and by ``.ci/run`` (``python tests/browser.py DIR``, which
leaves the screenshots in ``DIR/screenshots/`` as CI artefacts).  Chromium's own
``--dump-dom`` and ``--screenshot`` do the work, so no driver is needed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-dev-shm-usage")
#: Written into a copy of the page: on load, every image's (complete, naturalWidth) as an attribute of <html>.
PROBE = ("<script>window.addEventListener('load',function(){var r=[].map.call(document.images,function(i)"
         "{return [i.complete,i.naturalWidth]});document.documentElement.setAttribute('data-ntpcheck-images',"
         "JSON.stringify(r));document.documentElement.setAttribute('data-ntpcheck-title',document.title);});</script>")


def chromium() -> str | None:
    """The Chromium executable on PATH, or None."""
    return next((p for p in map(shutil.which, NAMES) if p), None)


def _run(exe: str, *args: str, timeout: float = 120) -> str:
    out = subprocess.run([exe, *FLAGS, *args], capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"chromium failed ({out.returncode}): {out.stderr[-2000:]}")
    return out.stdout


def check(report_dir: str | os.PathLike, claim: str | None = None) -> dict:
    """Load ``report_dir/report.html`` in headless Chromium.  Returns ``{"title", "images": [[complete,
    naturalWidth], ...], "screenshots": [paths]}``; the screenshots go to ``report_dir/screenshots/``:
    ``top.png`` (the page as opened) and ``claim.png`` (the article ``claim``, an anchor; default the
    first claim with a figure)."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("no Chromium on PATH (apt-get install chromium)")
    root = Path(report_dir).resolve()
    page = (root / "report.html").read_text(encoding="utf-8")
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    probe = shots / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = _run(exe, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    m = re.search(r'data-ntpcheck-images="([^"]*)"', dom)
    t = re.search(r'data-ntpcheck-title="([^"]*)"', dom)
    images = json.loads(m.group(1).replace("&quot;", '"')) if m else None
    top = shots / "top.png"
    _run(exe, "--virtual-time-budget=5000", f"--screenshot={top}", "--window-size=1400,1000", (root / "report.html").as_uri())
    # One claim: a copy of the page showing only that claim's article (a screenshot is of the top of a page).
    anchors = re.findall(r'<article id="([^"]+)">\s*<h4>.*?</h4>.*?(?=</article>)', page, flags=re.S)
    body = {a: page.split(f'<article id="{a}">', 1)[1].split("</article>", 1)[0] for a in anchors}
    with_figure = [a for a in anchors if "data:image/png" in body[a]]
    falsified = [a for a in with_figure if ">falsified</span></h4>" in body[a]]  # the most telling claim to show
    claim = claim or next(iter(falsified + with_figure + anchors), None)
    paths = [str(top)]
    if claim:
        only = (f"<style>nav{{display:none}}main{{margin-left:0}}main>*{{display:none}}main>section:has(#{claim}){{display:block}}"
                f"main>section:has(#{claim})>*:not(#{claim}){{display:none}}</style></head>")
        view = shots / "claim.html"
        view.write_text(page.replace("</head>", only, 1), encoding="utf-8")
        shot = shots / "claim.png"
        _run(exe, "--virtual-time-budget=5000", f"--screenshot={shot}", "--window-size=1400,1100", view.as_uri())
        paths.append(str(shot))
        view.unlink()
    probe.unlink()
    return {"title": t.group(1) if t else None, "images": images, "screenshots": paths, "claim": claim}


if __name__ == "__main__":  # python tests/browser.py DIR: exit 1 unless every image resolves
    got = check(sys.argv[1])
    bad = [k for k, (done, width) in enumerate(got["images"] or []) if not done or width <= 0]
    print(f"{len(got['images'] or [])} images, {len(bad)} unresolved; screenshots: {', '.join(got['screenshots'])}")
    sys.exit(1 if bad or got["images"] is None else 0)
