// Drives `lppctl mcp serve` with the official TypeScript MCP SDK, an outside
// client, over stdio and over streamable HTTP, and prints a JSON summary of
// what it saw on stdout. It checks nothing itself: cmd/lppctl's
// TestMCPServeOutsideClient asserts on the summary.
//
// Usage: node client.mjs stdio LPPCTL_BINARY LIBRARY
//        node client.mjs http URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';

const sdkVersion = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url))).version;

// tap records every JSON-RPC response the transport delivers, by request id,
// so the summary shows the wire shape (result vs error) of each call. The
// client installs its onmessage handler in connect(), so intercept the setter.
function tap(transport) {
  const responses = new Map();
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (fn) => {
      handler = fn && ((msg, extra) => {
        if (msg && msg.id !== undefined && ('result' in msg || 'error' in msg)) responses.set(msg.id, msg);
        return fn(msg, extra);
      });
    },
  });
  return responses;
}

// The calls, in order. Each is made with client.callTool, so the SDK also
// validates structured content against the tool's output schema.
const steps = [
  ['add_retry', 'add_skill', { name: 'retry_with_backoff', principle: 'Retry transient errors with exponential backoff.', when_to_apply: 'HTTP 429 or 5xx responses.' }],
  ['add_verify', 'add_skill', { name: 'verify_output_paths', principle: 'Check that every output file exists before reporting success.', when_to_apply: 'At the end of a task that writes files.' }],
  ['search', 'search_skills', { query: 'output file exists or errors', top_k: 2 }],
  ['search_default_k', 'search_skills', { query: 'transient errors in written files' }],
  ['update', 'update_skill', { name: 'verify_output_paths', new_name: 'verify_outputs', when_to_apply: 'After every step that writes files.' }],
  ['list', 'list_skills', {}],
  ['remove', 'remove_skill', { name: 'retry_with_backoff' }],
  // Bad calls: each must be a tool result with isError, not a protocol error.
  ['remove_unknown', 'remove_skill', { name: 'retry_with_backoff' }],
  ['remove_empty_name', 'remove_skill', { name: '' }],
  ['add_empty_name', 'add_skill', { name: '', principle: 'p', when_to_apply: 'w' }],
  ['update_unknown', 'update_skill', { name: 'ghost', principle: 'p' }],
  ['add_missing_field', 'add_skill', { name: 'half_a_skill', principle: 'p' }],
  ['search_bad_top_k', 'search_skills', { query: 'x', top_k: 'three' }],
  ['search_empty_query', 'search_skills', { query: '' }],
  ['search_negative_top_k', 'search_skills', { query: 'x', top_k: -1 }],
  ['list_final', 'list_skills', {}],
];

async function exercise(transport) {
  const responses = tap(transport);
  const client = new Client({ name: 'lppctl-outside-client', version: '1.0.0' });
  // Errors the SDK reports out of band (e.g. a failed SSE stream).
  const errors = [];
  client.onerror = (err) => errors.push(String(err?.message ?? err));
  await client.connect(transport);
  const out = {
    errors,
    sdkVersion,
    clientProtocolVersion: LATEST_PROTOCOL_VERSION,
    protocolVersion: responses.get(0)?.result?.protocolVersion ?? null,
    serverInfo: client.getServerVersion() ?? null,
    instructions: client.getInstructions() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
    tools: {},
    calls: {},
  };
  const { tools } = await client.listTools();
  for (const t of tools) {
    out.tools[t.name] = {
      description: t.description ?? '',
      inputType: t.inputSchema?.type ?? null,
      properties: Object.keys(t.inputSchema?.properties ?? {}).sort(),
      required: [...(t.inputSchema?.required ?? [])].sort(),
      hasOutputSchema: !!t.outputSchema,
    };
  }
  for (const [step, name, args] of steps) {
    const rec = { tool: name };
    const before = new Set(responses.keys());
    try {
      const res = await client.callTool({ name, arguments: args });
      rec.isError = res.isError === true;
      rec.text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      rec.structured = res.structuredContent ?? null;
    } catch (err) {
      // A protocol failure (JSON-RPC error) or an SDK-side validation failure.
      rec.protocolError = { code: err?.code ?? null, message: String(err?.message ?? err) };
    }
    const id = [...responses.keys()].find((k) => !before.has(k));
    const wire = id === undefined ? undefined : responses.get(id);
    rec.wire = wire === undefined ? 'none' : 'error' in wire ? 'error' : 'result';
    out.calls[step] = rec;
  }
  return { client, out };
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  let summary;
  if (mode === 'stdio') {
    const [bin, library] = rest;
    const transport = new StdioClientTransport({
      command: bin,
      args: ['mcp', 'serve', '--library', library],
      env: { ...process.env, CI: 'true' },
      stderr: 'inherit',
    });
    const { client, out } = await exercise(transport);
    // The SDK does not expose the child's exit status; watch it before close.
    const child = transport._process;
    const exited = child ? new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))) : null;
    const start = Date.now();
    await client.close(); // ends stdin, then waits up to 2 s before SIGTERM
    out.exit = exited ? await exited : null;
    out.closeMillis = Date.now() - start;
    summary = out;
  } else if (mode === 'http') {
    const [url] = rest;
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const { client, out } = await exercise(transport);
    out.sessionId = transport.sessionId ?? null;
    try {
      await transport.terminateSession();
      out.terminated = true;
    } catch (err) {
      out.terminated = String(err?.message ?? err);
    }
    await client.close();
    summary = out;
  } else {
    throw new Error(`usage: node client.mjs stdio BINARY LIBRARY | http URL (got ${mode})`);
  }
  process.stdout.write(JSON.stringify(summary) + '\n');
}

main().catch((err) => {
  process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
