// Parses Mermaid files with the real Mermaid parser, in jsdom.
// Usage: node check.mjs FILE...   (after `npm install` in this folder)
// Prints "ok FILE" or "FAIL FILE: message" per file; exits 1 when any failed.
import { JSDOM } from 'jsdom';
import { readFileSync } from 'node:fs';

const dom = new JSDOM('<!DOCTYPE html><body></body>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const k of ['DOMParser', 'Element', 'HTMLElement', 'Node', 'navigator']) {
  if (!(k in globalThis)) globalThis[k] = dom.window[k];
}
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let failed = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  try {
    await mermaid.parse(text);
    console.log(`ok ${file}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${file}: ${String(e.message || e).split('\n').slice(0, 6).join(' | ')}`);
  }
}
process.exit(failed ? 1 : 0);
