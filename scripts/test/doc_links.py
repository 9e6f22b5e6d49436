#!/usr/bin/env python3
"""Checks that every relative link and image in README.md, CONTRIBUTING.md and
docs/**/*.md resolves to a file or folder of the repository (anchors are not
checked). Prints each broken link; exit 1 if there is one.

    python3 scripts/test/doc_links.py [repository root]
"""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def main(root):
    root = pathlib.Path(root).resolve()
    pages = [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "docs").rglob("*.md"))]
    broken = 0
    for page in pages:
        if not page.exists():
            continue
        in_code = False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue  # a URL or an anchor in the same page
                path = (page.parent / target.split("#", 1)[0]).resolve()
                if not path.exists():
                    print(f"{page.relative_to(root)}:{number}: {target}")
                    broken += 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]))
