"""The app's rendering of agent content stays inert: the real Markdown renderer (marked + DOMPurify,
ui/lib/markdown-render.js), the diff view (lib/diff.js) and the artifact preview rule (lib/artifacts.js), run
in Chromium on the hub's own page, under its real Content-Security-Policy, against a list of known XSS vectors.

What is checked on every output: no element outside the allow-list, no event-handler or style attribute, no URL
attribute with a scheme other than http(s)/mailto, every link opening in a new tab without an opener or referrer,
no script ran (a canary), and the browser reported no CSP violation (nothing even tried to load or run).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest

from tests.security.support import ServedHub
from tests.support import browsers

VECTORS = [
    "<script>window.__pwned = 1</script>",
    "<img src=x onerror=window.__pwned=2>",
    "<svg onload=window.__pwned=3></svg>",
    "<svg><script>window.__pwned=4</script></svg>",
    "<iframe src=\"javascript:window.parent.__pwned=5\"></iframe>",
    "<iframe srcdoc=\"<script>parent.__pwned=6</script>\"></iframe>",
    "<object data=\"data:text/html,<script>parent.__pwned=7</script>\"></object>",
    "<embed src=\"data:text/html,x\">",
    "<a href=\"javascript:window.__pwned=8\">x</a>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=9>",
    "<form><button formaction=javascript:window.__pwned=10>go</button></form>",
    "<details open ontoggle=window.__pwned=11>",
    "<div style=\"background:url(javascript:window.__pwned=12)\">styled</div>",
    "<style>@import 'https://example.com/x.css';</style>",
    "<base href=\"https://example.com/\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:window.__pwned=13\">",
    "<noscript><p title=\"</noscript><img src=x onerror=window.__pwned=14>\">",
    "[a](javascript:window.__pwned=15)",
    "[a](JaVaScRiPt:window.__pwned=16)",
    "[a](java\tscript:window.__pwned=17)",
    "[a](&#106;avascript:window.__pwned=18)",
    "[a](javascript&colon;window.__pwned=19)",
    "[a](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0yMDwvc2NyaXB0Pg==)",
    "[a](vbscript:msgbox(1))",
    "[a](file:///etc/passwd)",
    "[a](/api/me) [b](#/settings) [c](relative/path)",
    "[a](https://example.com \"title\" onclick=\"window.__pwned=21\")",
    "![x](javascript:window.__pwned=22)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9InBhcmVudC5fX3B3bmVkPTIzIi8+)",
    "![x\" onerror=\"window.__pwned=24](https://example.com/x.png)",
    "<https://example.com/\" onmouseover=\"window.__pwned=25>",
    "[x]: javascript:window.__pwned=26\n\n[click][x]",
    "```js\n</code></pre><img src=x onerror=window.__pwned=27>\n```",
    "```\"><img src=x onerror=window.__pwned=28>\nx\n```",
    "| a |\n|---|\n| <img src=x onerror=window.__pwned=29> |",
    "- [x] <input type=text autofocus onfocus=window.__pwned=30>",
    "<a href=\"https://example.com\" target=\"_self\" rel=\"opener\">same tab?</a>",
    "`<script>window.__pwned=31</script>`",
    "<!-- --><script>window.__pwned=32</script><!-- -->",
    "<template><script>window.__pwned=33</script></template>",
    "<a href=\"&#x6A;avascript:window.__pwned=34\">x</a>",
    "<img src=\"data:image/png;base64,iVBORw0KGgo=\">",
    "<link rel=import href=\"https://example.com\">",
]

TAGS = {"a", "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "span", "blockquote", "ul", "ol", "li", "table",
        "thead", "tbody", "tr", "th", "td", "div", "input"}

CHECK = """(root) => {
  const problems = [];
  for (const el of root.querySelectorAll('*')) {
    if (!TAGS.includes(el.localName)) problems.push(`element <${el.localName}>`);
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on') || attr.name === 'style' || attr.name === 'srcdoc' || attr.name === 'formaction')
        problems.push(`<${el.localName} ${attr.name}>`);
      if (['href', 'src', 'action', 'xlink:href', 'data'].includes(attr.name)
          && !/^(https?:|mailto:|\\/\\/)/i.test(attr.value.trim())) problems.push(`<${el.localName} ${attr.name}=${attr.value}>`);
    }
    if (el.localName === 'a' && el.hasAttribute('href')
        && (el.getAttribute('target') !== '_blank' || el.getAttribute('rel') !== 'noopener noreferrer'))
      problems.push(`link without target/rel: ${el.outerHTML}`);
    if (el.localName === 'input' && (el.type !== 'checkbox' || !el.disabled)) problems.push(`input ${el.outerHTML}`);
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    hub = ServedHub(tmp_path_factory.mktemp("xss") / "hub").start()
    try:
        with browsers.chromium() as browser:
            context = browser.new_context(base_url=hub.base, service_workers="block")
            page = context.new_page()
            cast(Any, page).violations = []  # the page carries the test's list of what the console said
            page.on("console", lambda m: cast(Any, page).violations.append(m.text)
                    if m.type == "error" and ("Content Security Policy" in m.text or "Refused" in m.text) else None)
            page.goto("/")
            page.wait_for_selector("lineup-app form, lineup-app input", timeout=15_000)
            page.evaluate("""async () => {
                document.addEventListener('securitypolicyviolation', (e) => { window.__csp = (window.__csp || 0) + 1; });
                window.__md = await import('/lib/markdown-render.js');
                window.__diff = await import('/lib/diff.js');
                window.__artifacts = await import('/lib/artifacts.js');
                window.__lit = await import('/vendor/lit-html/lit-html.js');
            }""")
            yield page
    finally:
        hub.stop()


def render_into_page(page: Any, source: str) -> list[str]:
    """Render `source` as an agent message would be, attach it to the document (so anything live would run)."""
    return cast(list[str], page.evaluate("""async ([source, tags]) => {
        const TAGS = tags;
        const check = """ + CHECK + """;
        const fragment = await window.__md.renderMarkdown(source); // formatted in the worker, sanitised here
        if (!fragment) return ['not formatted'];
        const host = document.createElement('div');
        host.className = 'md';
        host.append(fragment);
        document.body.append(host);
        await new Promise((done) => setTimeout(done, 30)); // an onerror/onload would have fired by now
        for (const a of host.querySelectorAll('a')) a.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        const problems = check(host);
        host.remove();
        return problems;
    }""", [source, sorted(TAGS)]))


@pytest.mark.parametrize("vector", VECTORS)
def test_markdown_output_is_inert(page: Any, vector: str) -> None:
    problems = render_into_page(page, vector)
    assert problems == [], (vector, problems)
    assert page.evaluate("window.__pwned") is None, vector


def test_no_script_ran_and_no_csp_violation_after_every_vector(page: Any) -> None:
    for vector in VECTORS:
        render_into_page(page, vector)
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("window.__csp || 0") == 0
    assert page.violations == []


def test_diff_view_keeps_hostile_lines_as_text(page: Any) -> None:
    diff = ("--- a/x.html\n+++ b/x.html\n@@ -1,2 +1,2 @@\n-<img src=x onerror=window.__pwned=40>\n"
            "+<script>window.__pwned=41</script>\n <a href=\"javascript:window.__pwned=42\">x</a>\n")
    texts = page.evaluate("""async (diff) => {
        const files = window.__diff.parseUnifiedDiff(diff);
        const host = document.createElement('div');
        document.body.append(host);
        window.__lit.render(window.__diff.diffView(files), host);
        await new Promise((done) => setTimeout(done, 30));
        const out = { tags: [...host.querySelectorAll('script, img, a, iframe')].length,
                      lines: [...host.querySelectorAll('.diff-text')].map((el) => el.textContent) };
        host.remove();
        return out;
    }""", diff)
    assert texts["tags"] == 0
    assert texts["lines"] == ["<img src=x onerror=window.__pwned=40>", "<script>window.__pwned=41</script>",
                              "<a href=\"javascript:window.__pwned=42\">x</a>"]
    assert page.evaluate("window.__pwned") is None


@pytest.mark.parametrize(("url", "mime", "previewed"), [
    ("data:image/png;base64,iVBORw0KGgo=", None, True),
    ("data:image/webp;base64,UklGRg==", "image/webp", True),
    ("data:image/svg+xml;base64,PHN2Zy8+", None, False),
    ("data:image/svg+xml;base64,PHN2Zy8+", "image/png", False),  # the declared type does not make svg a png
    ("data:text/html;base64,PHNjcmlwdD4=", "image/png", False),
    ("DATA:image/SVG+xml,<svg onload=alert(1)>", None, False),
    ("/icons/icon-192.png", None, True),
    ("/files/chart.svg", None, False),
    ("/files/chart.svg", "image/png", False),
    ("/files/report", "image/svg+xml", False),
    ("/files/report", "image/png", True),
    ("https://example.com/x.png", "image/png", False),  # another site: never loaded (tracking, CSP)
    ("//example.com/x.png", None, False),
    ("/\\example.com/x.png", None, False),
    ("javascript:alert(1)//.png", None, False),
    ("blob:https://example.com/1234", "image/png", False),
])
def test_artifact_preview_only_safe_images_from_here(page: Any, url: str, mime: str | None, previewed: bool) -> None:
    got = page.evaluate("([url, mime]) => window.__artifacts.previewUrl({ url, mimeType: mime || undefined })",
                        [url, mime])
    assert (got is not None) == previewed, (url, mime, got)
