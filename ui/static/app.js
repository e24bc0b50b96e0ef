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

// zoomable gives a drawn diagram zoom (the +, − and fit buttons, or
// Ctrl + wheel) and pan (drag).
function zoomable(box) {
  const svg = box.querySelector("svg");
  if (!svg || box.querySelector(".zoom")) return;
  let s = 1, x = 0, y = 0, drag = null;
  const apply = () => {
    svg.style.transformOrigin = "0 0";
    svg.style.transform = `translate(${x}px, ${y}px) scale(${s})`;
    box.dataset.scale = s.toFixed(2);
  };
  const bar = document.createElement("div");
  bar.className = "zoom";
  for (const [label, title, f] of [["+", "zoom in", () => { s *= 1.25; }], ["−", "zoom out", () => { s /= 1.25; }], ["fit", "fit the drawing", () => { s = 1; x = 0; y = 0; }]]) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.title = title;
    b.className = "zoom-" + (label === "+" ? "in" : label === "fit" ? "fit" : "out");
    b.addEventListener("click", () => { f(); apply(); });
    bar.appendChild(b);
  }
  box.prepend(bar);
  box.classList.add("zoomable");
  box.addEventListener("wheel", e => {
    if (!e.ctrlKey && !e.metaKey) return; // a plain wheel scrolls the page
    e.preventDefault();
    s *= e.deltaY < 0 ? 1.1 : 1 / 1.1;
    apply();
  }, {passive: false});
  box.addEventListener("pointerdown", e => {
    if (e.target.closest("button, a")) return;
    drag = {px: e.clientX - x, py: e.clientY - y};
    box.setPointerCapture(e.pointerId);
    box.classList.add("dragging");
  });
  box.addEventListener("pointermove", e => {
    if (!drag) return;
    x = e.clientX - drag.px;
    y = e.clientY - drag.py;
    apply();
  });
  const end = () => { drag = null; box.classList.remove("dragging"); };
  box.addEventListener("pointerup", end);
  box.addEventListener("pointercancel", end);
}

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
      zoomable(box);
    } catch (e) {
      out.textContent = "cannot draw the diagram: " + (e.message || e) + "\n\n" + src.textContent;
      out.classList.add("err");
      box.dataset.rendered = "error";
    }
  }
}

// refresh fetches the page again and swaps in its live parts (the
// decision form only when the run's pause changed, so typing is not lost).
// detailsByKey names each <details> of root by the nearest element with an
// id and its rank among that element's <details>: the same fold in the page
// read again has the same name.
function detailsByKey(root) {
  const rank = new Map(), out = [];
  for (const d of root.querySelectorAll("details")) {
    const id = d.parentElement?.closest("[id]")?.id || "";
    const n = rank.get(id) || 0;
    rank.set(id, n + 1);
    out.push([id + "#" + n, d]);
  }
  return out;
}

// foldState records which folds of root are open and which closed.
function foldState(root) {
  return new Map(detailsByKey(root).map(([key, d]) => [key, d.open]));
}

let retries = 0;

async function refresh() {
  let res;
  try {
    res = await fetch(document.body.dataset.self || location.href, {headers: {"Accept": "text/html"}, credentials: "same-origin"});
  } catch (e) {
    setOffline(true);
    return;
  }
  if (res.status === 404 && document.body.dataset.live.includes("run=")) {
    gone();
    return;
  }
  if (!res.ok) { // e.g. a run caught being deleted: read it again shortly
    if (retries++ < 5) setTimeout(refresh, 1000);
    return;
  }
  retries = 0;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  let diagram = false;
  for (const part of document.querySelectorAll("[data-live-part]")) {
    const next = doc.getElementById(part.id);
    if (!next) continue;
    if (part.dataset.key !== undefined && part.dataset.key === next.dataset.key) continue;
    const folds = foldState(part);
    if (part.id === "graph") {
      const a = part.querySelector(".mermaid-src, .svg-out, .source");
      const b = next.querySelector(".mermaid-src, .svg-out, .source");
      if (a && b && a.textContent === b.textContent) continue; // unchanged: keep the drawing
      diagram = true;
    }
    const copy = document.importNode(next, true);
    for (const [key, d] of detailsByKey(copy)) {
      if (folds.has(key)) d.open = folds.get(key); // as the person left it
    }
    part.replaceWith(copy);
  }
  if (diagram) drawDiagrams();
  for (const box of document.querySelectorAll(".diagram[data-rendered=svg]")) zoomable(box);
  document.dispatchEvent(new Event("lppctl:refreshed"));
}

// setOffline marks what the page shows as possibly stale while the server
// does not answer: a status it did not read is never shown as current.
function setOffline(off) {
  document.body.classList.toggle("offline", off);
  const dot = document.getElementById("live-dot");
  if (dot) {
    dot.classList.toggle("on", !off);
    dot.title = off ? "disconnected: what the page shows may be out of date; reconnecting" : "live updates";
  }
}

// gone shows that the run of this page no longer exists (deleted).
function gone() {
  document.body.classList.add("gone");
  const st = document.getElementById("run-status");
  if (st) {
    st.textContent = "deleted";
    st.className = "badge st-deleted";
  }
  if (!document.getElementById("gone")) {
    const p = document.createElement("p");
    p.id = "gone";
    p.className = "notice err";
    p.textContent = "This run no longer exists: its folder was deleted. What is below is what the page last read.";
    document.querySelector("main").prepend(p);
  }
  for (const f of document.querySelectorAll("main form[method=post]")) f.remove();
}

function live() {
  const url = document.body.dataset.live;
  if (!url || !window.EventSource) return;
  const es = new EventSource(url);
  // One refresh at a time; a change that arrives during one is not lost:
  // the page is read again when it ends (a run deleted while the page was
  // being read must still show as gone).
  let pending = false, again = false;
  const update = async () => {
    if (pending) { again = true; return; }
    pending = true;
    try {
      do { again = false; await refresh(); } while (again);
    } finally { pending = false; }
  };
  // On every hello (the first included: the run may have moved between the
  // page's render and the stream's start; and after a reconnection, what
  // changed meanwhile was not signalled), read the page again.
  es.addEventListener("hello", () => { setOffline(false); update(); });
  es.addEventListener("change", () => update());
  es.addEventListener("gone", () => gone());
  es.onerror = () => {
    setOffline(true);
    if (document.body.classList.contains("gone")) es.close();
  };
}

document.addEventListener("DOMContentLoaded", () => {
  for (const sel of document.querySelectorAll("form.filter select")) {
    sel.addEventListener("change", () => sel.form.submit());
  }
  // the step slider (re-rendered by refresh: delegated)
  document.addEventListener("input", e => {
    const r = e.target;
    if (r.matches && r.matches("input[type=range][data-nav]")) {
      const out = r.form && r.form.querySelector("output");
      if (out) out.textContent = r.value;
    }
  });
  document.addEventListener("change", e => {
    const r = e.target;
    if (r.matches && r.matches("input[type=range][data-nav]")) r.form.submit();
  });
  drawDiagrams();
  for (const box of document.querySelectorAll(".diagram[data-rendered=svg]")) zoomable(box);
  live();
});
