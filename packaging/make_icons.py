"""Render the app icon (ui/icon.svg) to the PNG sizes a web app manifest and iOS need: `python packaging/make_icons.py` (output committed in ui/icons/)."""
from pathlib import Path

from playwright.sync_api import sync_playwright

svg = Path("ui/icon.svg").read_text()
# The plain icon fills its square (rounded corners); the maskable one keeps the mark inside the 80 % safe zone
# on a full-bleed background, since launchers crop maskable icons to their own shape.
maskable = svg.replace('<rect width="32" height="32" rx="8" fill="#356ae6"/>',
                       '<rect width="32" height="32" fill="#356ae6"/>').replace(
    '<path ', '<path transform="translate(3.2 3.2) scale(0.8)" ')
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
    for name, source, size in [("icon-192.png", svg, 192), ("icon-512.png", svg, 512),
                               ("maskable-512.png", maskable, 512), ("apple-touch-icon.png", maskable, 180)]:
        page = browser.new_page(viewport={"width": size, "height": size})
        page.set_content(f'<html><body style="margin:0;background:transparent">'
                         f'<div style="width:{size}px;height:{size}px">{source.replace("<svg ", f"<svg width={size} height={size} ")}</div></body></html>')
        page.screenshot(path=f"ui/icons/{name}", omit_background=True, clip={"x": 0, "y": 0, "width": size, "height": size})
        page.close()
    browser.close()
