#!/usr/bin/env python3
"""svg_in_browser.py SVG TEXT...: open the SVG inline in an HTML page in
headless chromium (--dump-dom), where a script counts what the browser laid
out: event groups, their rectangles with a non-empty box, and for each TEXT
the <text> labels showing it (or the tooltip of a drawn event naming it,
when its label did not fit: how wide an event is depends on timing). Prints the counts as JSON; exit 0 when there
is at least one event rectangle drawn and every TEXT is shown, 1 when not,
77 when chromium is absent (automake's "skipped")."""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SCRIPT = """
<script>
const svg = document.querySelector('svg');
const events = svg ? svg.querySelectorAll('g.event') : [];
let drawn = 0;
for (const g of events) {
  const r = g.querySelector('rect');
  const b = r && r.getBBox();
  if (b && b.width > 0 && b.height > 0) drawn++;
}
const texts = svg ? Array.from(svg.querySelectorAll('text')).map(t => t.textContent) : [];
const wanted = JSON.parse(document.getElementById('wanted').textContent);
// a text is shown when a label says it, or when it names a drawn event
// whose label did not fit (its tooltip says it)
const tips = Array.from(events).filter(g => g.querySelector('rect').getBBox().width > 0)
  .map(g => g.querySelector('title').textContent);
const shown = {}, labelled = {};
for (const w of wanted) {
  labelled[w] = texts.filter(t => t.includes(w)).length;
  shown[w] = labelled[w] + tips.filter(t => t.includes(w)).length;
}
const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
const out = document.createElement('pre');
out.id = 'result';
out.textContent = JSON.stringify({svg: !!svg, events: events.length,
  drawn: drawn, texts: texts.length, shown: shown, labelled: labelled,
  width: Math.round(box.width), height: Math.round(box.height)});
document.body.appendChild(out);
</script>
"""


def find_chromium():
    for c in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
              shutil.which("chromium-browser")):
        if c and os.access(c, os.X_OK):
            return c
    return None


def main():
    svg_path, wanted = sys.argv[1], sys.argv[2:]
    chromium = find_chromium()
    if not chromium:
        print("skip: no chromium (tests/deps.sh installs it)")
        return 77
    svg = open(svg_path).read()
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        with open(page, "w") as f:
            f.write("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>\n")
            f.write("<script type='application/json' id='wanted'>%s</script>\n"
                    % json.dumps(wanted).replace("</", "<\\/"))
            f.write(svg)
            f.write(SCRIPT)
            f.write("</body></html>\n")
        profile = os.path.join(tmp, "profile")
        os.mkdir(profile)
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               "--user-data-dir=" + profile, "--dump-dom", "file://" + page]
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=120, text=True)
        except subprocess.TimeoutExpired:
            print("chromium did not finish in 120 s")
            return 1
    m = re.search(r'<pre id="result">(.*?)</pre>', r.stdout, re.S)
    if not m:
        print("chromium (exit %d) printed no result; stderr: %s" % (r.returncode, r.stderr[-500:]))
        return 1
    res = json.loads(html.unescape(m.group(1)))
    print(json.dumps(res))
    ok = res["svg"] and res["drawn"] > 0 and res["width"] > 0 and all(res["shown"].values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
