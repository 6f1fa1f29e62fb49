"""The shell every HTML page of a product that draws its own shares (bench, ceiling, fleet): one self-contained
file (inline CSS and script, no font, image or script fetched, and the page's Content-Security-Policy forbids
any fetch), fit to attach to a ticket and open offline. The audit report's page is drawn by render.document.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackaudit.render.escape import esc
from stackaudit.report.charts import CHART_CSS

# No external anything: the policy forbids every fetch, the styles and script are inline.
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'; "
        "connect-src 'none'; font-src 'none'; form-action 'none'; base-uri 'none'")

_CSS = """
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#fff;--p0:#b91c1c;--p1:#c2410c;--p2:#a16207;--ok:#15803d}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1200px;padding:16px 24px}
h1{font-size:22px;margin:4px 0}
h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:16px 0 6px}code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;margin:4px 0;white-space:pre-wrap;word-break:break-word}
.muted{color:var(--muted)}.verdict{font-size:16px;margin:8px 0}.headline{margin:2px 0}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;color:#fff;background:var(--muted);margin-right:6px}
.badge.P0{background:var(--p0)}.badge.P1{background:var(--p1)}.badge.P2{background:var(--p2)}
.badge.ok{background:var(--ok)}.badge.not-an-issue{background:#0369a1}.badge.unknown{background:#6b7280}
.badge.error{background:#7c3aed}.badge.not-applicable{background:#9ca3af}
#filters{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:12px 0;display:flex;flex-wrap:wrap;gap:6px 18px}
#filters fieldset{border:0;margin:0;padding:0}#filters legend{font-weight:600;font-size:12px;color:var(--muted)}
#filters label{margin-right:8px;white-space:nowrap}#shown{font-size:12px;color:var(--muted);align-self:center}
ul{margin:4px 0;padding-left:22px}.kv{color:var(--muted)}table{border-collapse:collapse;margin:6px 0}
td,th{border:1px solid var(--line);padding:3px 8px;text-align:left;font-size:13px}th{background:#f8fafc}
td.num{text-align:right}
"""


def page(title: str, body: Sequence[str], script: bool = True, extra_css: str = "", extra_script: str = "") -> str:
    """The self-contained page: the policy, the inline style, the body, the inline script (render.document's
    filters and copy buttons when `script`; a page's own in `extra_script`, inline too: the policy allows no
    other)."""
    from stackaudit.render.document import SCRIPT

    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}{CHART_CSS}{extra_css}</style></head>\n<body>\n",
        "\n".join(body),
        f"\n<script>{SCRIPT}</script>" if script else "",
        f"\n<script>{extra_script}</script>" if extra_script else "",
        "\n</body></html>\n",
    ])
