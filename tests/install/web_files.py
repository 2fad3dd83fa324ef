#!/usr/bin/env python3
"""tests/install/web_files.py: the web root's install list against the page.

    web_files.py --web client-web --list BUILD/client-web/web-files.txt

Follows what the pages load, from index.html, tournament.html and
overlay.html: their src= and href=, each module's imports (the msgpack
module's too), and the file names the scripts use (favicon-move.svg,
/overlay.html#t=...). scenarios/ is the build's generated folder, installed
whole, and not part of the list. The list (BRIGADE_WEB_FILES in
client-web/CMakeLists.txt) must be exactly that set: a referenced file not
installed, or an installed file nothing references, fails. Prints
"1 passed, 0 failed" or the difference.
"""
import argparse
import os
import posixpath
import re
import sys

PAGES = ["index.html", "tournament.html", "overlay.html"]
HTML_REF = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""")
EXTENSIONS = "svg|css|js|mjs|html|json|png|ico|webmanifest|woff2?"
# A file name in a script: in quotes, or followed by a fragment or a query.
SCRIPT_REF = re.compile(r"""(?<![A-Za-z0-9_$])((?:\.{1,2}/|/)?[A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:%s))(?=["'`#?])"""
                        % EXTENSIONS)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def strip_comments(text):
    text = BLOCK_COMMENT.sub("", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def references(web, path):
    with open(os.path.join(web, path), encoding="utf-8") as f:
        text = f.read()
    found = HTML_REF.findall(text) if path.endswith(".html") else SCRIPT_REF.findall(strip_comments(text))
    folder = posixpath.dirname(path)
    for ref in found:
        ref = re.split(r"[#?]", ref, maxsplit=1)[0]
        if not ref or re.match(r"^[a-z]+:", ref) or ref.startswith("//"):
            continue  # a fragment, another site, mailto:
        target = ref.lstrip("/") if ref.startswith("/") else posixpath.normpath(posixpath.join(folder, ref))
        yield target or "index.html"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--web", required=True)
    parser.add_argument("--list", required=True)
    args = parser.parse_args()
    with open(args.list) as f:
        listed = set(line.strip() for line in f if line.strip())
    seen, todo, missing = set(), list(PAGES), []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.startswith("scenarios/"):
            continue
        if not os.path.isfile(os.path.join(args.web, path)):
            missing.append(path)
            continue
        if path.endswith((".html", ".js", ".mjs")):
            todo.extend(references(args.web, path))
    referenced = set(path for path in seen if not path.startswith("scenarios/"))
    failures = []
    if missing:
        failures.append("referenced but not in the source tree: %s" % sorted(missing))
    if referenced - listed:
        failures.append("referenced but not installed (add to BRIGADE_WEB_FILES): %s"
                        % sorted(referenced - listed))
    if listed - referenced:
        failures.append("installed but referenced by no page: %s" % sorted(listed - referenced))
    if not failures:
        print("%d files, all referenced and installed" % len(listed))
    for failure in failures:
        print("FAIL: " + failure)
    print("0 passed, 1 failed" if failures else "1 passed, 0 failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
