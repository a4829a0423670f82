// The canvas tool's UI module: <lineup-canvas> draws an instance's strokes as SVG (docs/design.md#the-canvas).
// Contract (plugins/README.md): the app sets `.instance = {id, state: {width, height, title, strokes}, status}`
// whenever a tool.result for that instance arrives; the element never opens a connection of its own.

const SVG_NS = "http://www.w3.org/2000/svg";

export class LineupCanvas extends HTMLElement {
  #instance = null;

  set instance(value) {
    this.#instance = value;
    this.render();
  }

  get instance() {
    return this.#instance;
  }

  connectedCallback() {
    this.render();
  }

  render() {
    const instance = this.#instance;
    this.replaceChildren();
    if (!instance || !instance.state) return;
    const { width, height, title, strokes = [] } = instance.state;
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${Number(width) || 1} ${Number(height) || 1}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", title || `canvas ${instance.id}`);
    svg.classList.add("lineup-canvas-drawing");
    for (const stroke of strokes) {
      const path = document.createElementNS(SVG_NS, "path");
      path.setAttribute("d", stroke.path);
      path.setAttribute("stroke", stroke.color || "currentColor");
      path.setAttribute("stroke-width", String(stroke.width || 2));
      path.setAttribute("fill", "none");
      path.setAttribute("stroke-linecap", "round");
      svg.append(path);
    }
    const caption = document.createElement("p");
    caption.className = "lineup-canvas-caption";
    caption.textContent = `${title || "Canvas"} · ${strokes.length} · ${instance.status === "closed" ? "closed" : "open"}`;
    this.append(svg, caption);
  }
}

if (!customElements.get("lineup-canvas")) customElements.define("lineup-canvas", LineupCanvas);
