// lppctl ui: live updates (server-sent events) and Mermaid diagrams.
// Nothing here evaluates content from a run: pages are rendered (and
// escaped) by the server; Mermaid runs with securityLevel "strict".
"use strict";

let mermaidReady = null;

// loadMermaid loads the embedded Mermaid library once.
function loadMermaid() {
  if (!mermaidReady) {
    mermaidReady = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = "/static/vendor/mermaid.min.js";
      s.onload = () => {
        window.mermaid.initialize({startOnLoad: false, securityLevel: "strict", theme: "default", flowchart: {htmlLabels: false}});
        resolve(window.mermaid);
      };
      s.onerror = () => reject(new Error("cannot load the Mermaid library"));
      document.head.appendChild(s);
    });
  }
  return mermaidReady;
}

let renders = 0;

// drawDiagrams renders every Mermaid source on the page into SVG.
async function drawDiagrams() {
  for (const box of document.querySelectorAll(".diagram")) {
    const src = box.querySelector(".mermaid-src");
    const out = box.querySelector(".mermaid-out");
    if (!src || !out) continue;
    try {
      const mermaid = await loadMermaid();
      const {svg} = await mermaid.render("mmd" + (++renders), src.textContent);
      out.innerHTML = svg; // Mermaid's output, sanitised in strict mode
      box.dataset.rendered = "svg";
    } catch (e) {
      out.textContent = "cannot draw the diagram: " + (e.message || e) + "\n\n" + src.textContent;
      out.classList.add("err");
      box.dataset.rendered = "error";
    }
  }
}

// refresh fetches the page again and swaps in its live parts (the
// decision form only when the run's pause changed, so typing is not lost).
async function refresh() {
  const res = await fetch(location.href, {headers: {"Accept": "text/html"}, credentials: "same-origin"});
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  let diagram = false;
  for (const part of document.querySelectorAll("[data-live-part]")) {
    const next = doc.getElementById(part.id);
    if (!next) continue;
    if (part.dataset.key !== undefined && part.dataset.key === next.dataset.key) continue;
    const open = new Set(Array.from(part.querySelectorAll("details[open]")).map(d => d.closest("[id]")?.id));
    if (part.id === "graph") {
      const a = part.querySelector(".mermaid-src, .svg-out, .source");
      const b = next.querySelector(".mermaid-src, .svg-out, .source");
      if (a && b && a.textContent === b.textContent) continue; // unchanged: keep the drawing
      diagram = true;
    }
    const copy = document.importNode(next, true);
    for (const d of copy.querySelectorAll("details")) {
      if (open.has(d.closest("[id]")?.id)) d.open = true;
    }
    part.replaceWith(copy);
  }
  if (diagram) drawDiagrams();
  document.dispatchEvent(new Event("lppctl:refreshed"));
}

function live() {
  const url = document.body.dataset.live;
  if (!url || !window.EventSource) return;
  const dot = document.getElementById("live-dot");
  const es = new EventSource(url);
  let pending = false;
  es.addEventListener("hello", () => dot && dot.classList.add("on"));
  es.addEventListener("change", async () => {
    if (pending) return;
    pending = true;
    try { await refresh(); } finally { pending = false; }
  });
  es.onerror = () => dot && dot.classList.remove("on");
}

document.addEventListener("DOMContentLoaded", () => {
  for (const sel of document.querySelectorAll("form.filter select")) {
    sel.addEventListener("change", () => sel.form.submit());
  }
  drawDiagrams();
  live();
});
