// The ppo language server driven by VS Code's own protocol libraries (vscode-jsonrpc and
// vscode-languageserver-protocol, what vscode-languageclient is built on), as a client would:
// initialize, open a corpus file, diagnostics, lenses, hover, the loop quick fix (listed, then
// resolved), its edit applied and sent back with didChange, the server commands, shutdown/exit.
//
//   PPO_BIN=target/release/ppo node --test test/protocol.test.js
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-jsonrpc/node');
const lsp = require('vscode-languageserver-protocol');

const REPO = path.resolve(__dirname, '..', '..', '..');
const CORPUS_FILE = path.join(REPO, 'corpus', 'ppo', 'dgemm.c');
const TIMEOUT_MS = 30000;

function ppoBin() {
  const bin = process.env.PPO_BIN;
  if (!bin) {
    throw new Error('PPO_BIN is not set: the path of the ppo binary (cargo build --release -p cli)');
  }
  if (!fs.existsSync(bin)) {
    throw new Error(`PPO_BIN=${bin} does not exist`);
  }
  return path.resolve(bin);
}

/** The 0-based line of the first line of `text` that contains `needle`. */
function lineOf(text, needle) {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `no line contains ${JSON.stringify(needle)}`);
  return i;
}

/** The offset in `text` of an LSP position (UTF-16 code units: JavaScript string indices). */
function offsetAt(text, pos) {
  let off = 0;
  for (let line = 0; line < pos.line; line++) {
    const nl = text.indexOf('\n', off);
    assert.ok(nl >= 0, `position ${JSON.stringify(pos)} is past the end of the text`);
    off = nl + 1;
  }
  const end = text.indexOf('\n', off);
  return Math.min(off + pos.character, end < 0 ? text.length : end);
}

/** Applies LSP text edits (non-overlapping, all against the same original text). */
function applyEdits(text, edits) {
  const sorted = edits
    .map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  for (const e of sorted) {
    text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  }
  return text;
}

/** The text edits of a WorkspaceEdit for `uri`, checking the version when it is versioned. */
function editsFor(edit, uri, version) {
  if (edit.documentChanges) {
    const changes = edit.documentChanges.filter((c) => c.textDocument && c.textDocument.uri === uri);
    assert.equal(changes.length, 1, `one TextDocumentEdit for ${uri}: ${JSON.stringify(edit)}`);
    assert.equal(changes[0].textDocument.version, version, 'the edit is versioned with the document version');
    return changes[0].edits;
  }
  assert.ok(edit.changes && edit.changes[uri], `changes for ${uri}: ${JSON.stringify(edit)}`);
  return edit.changes[uri];
}

function withTimeout(promise, what, ms = TIMEOUT_MS) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

class Session {
  constructor() {
    this.proc = cp.spawn(ppoBin(), ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    this.conn = rpc.createMessageConnection(
      new rpc.StreamMessageReader(this.proc.stdout),
      new rpc.StreamMessageWriter(this.proc.stdin),
    );
    this.diagnostics = new Map(); // uri -> [{version, diagnostics}]
    this.waiters = [];
    this.logs = [];
    this.applied = [];
    this.documents = new Map(); // uri -> {version, text}: what this client's editor holds
    this.conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
      const list = this.diagnostics.get(p.uri) ?? [];
      list.push(p);
      this.diagnostics.set(p.uri, list);
      this.waiters = this.waiters.filter((w) => !w(p));
    });
    this.conn.onNotification(lsp.LogMessageNotification.type, (p) => this.logs.push(p.message));
    this.conn.onNotification(lsp.ShowMessageNotification.type, (p) => this.logs.push(p.message));
    this.conn.onNotification('$/progress', () => {});
    this.conn.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
    this.conn.onRequest(lsp.CodeLensRefreshRequest.type, () => null);
    this.conn.onRequest(lsp.ConfigurationRequest.type, (p) => p.items.map(() => ({})));
    // workspace/applyEdit, as an editor does: the versioned edit applies to the document it holds.
    this.conn.onRequest(lsp.ApplyWorkspaceEditRequest.type, (p) => {
      this.applied.push(p);
      for (const [uri, doc] of this.documents) {
        const edits = editsFor(p.edit, uri, doc.version);
        doc.text = applyEdits(doc.text, edits);
        doc.version += 1;
        doc.changed = true;
      }
      return { applied: true };
    });
    this.conn.listen();
  }

  /** The first publishDiagnostics for `uri` that satisfies `pred` (already received or to come). */
  diagnosticsWhere(uri, pred, what) {
    const seen = (this.diagnostics.get(uri) ?? []).find(pred);
    if (seen) {
      return Promise.resolve(seen);
    }
    return withTimeout(
      new Promise((resolve) => {
        this.waiters.push((p) => {
          if (p.uri === uri && pred(p)) {
            resolve(p);
            return true;
          }
          return false;
        });
      }),
      what,
    );
  }

  request(type, params) {
    const method = type.method ?? String(type);
    const died = this.exited.then((e) => {
      throw new Error(`ppo lsp exited (${JSON.stringify(e)}) before answering ${method}; stderr:\n${this.stderr}`);
    });
    return withTimeout(Promise.race([this.conn.sendRequest(type, params), died]), method);
  }
}

test('ppo lsp with the VS Code protocol client', async (t) => {
  const s = new Session();
  t.after(() => {
    s.conn.dispose();
    if (s.proc.exitCode === null) {
      s.proc.kill('SIGKILL');
    }
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ppo-protocol-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dgemm.c');
  fs.copyFileSync(CORPUS_FILE, file);
  const uri = pathToFileURL(file).href;
  const text = fs.readFileSync(file, 'utf8');
  const kLine = lineOf(text, 'for(k=0;k<n;k+=1)');
  const jLine = lineOf(text, 'for(j=0;j<n;j+=1)');

  const init = await s.request(lsp.InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'protocol.test.js' },
    rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
    initializationOptions: { ppo: { hints: { parallelizable: 'hint' } } },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true, resourceOperations: ['create'] },
        configuration: true,
        codeLens: { refreshSupport: true },
      },
      window: { workDoneProgress: true },
      textDocument: {
        synchronization: { dynamicRegistration: false },
        publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        codeLens: {},
        codeAction: {
          codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } },
          isPreferredSupport: true,
          dataSupport: true,
          resolveSupport: { properties: ['edit'] },
        },
      },
    },
  });
  assert.equal(init.serverInfo?.name, 'ppo');
  const caps = init.capabilities;
  assert.equal(caps.positionEncoding ?? 'utf-16', 'utf-16');
  assert.ok(caps.codeLensProvider, 'code lenses');
  assert.ok(caps.hoverProvider, 'hover');
  assert.equal(caps.codeActionProvider?.resolveProvider, true, 'codeAction/resolve');
  for (const c of ['ppo.explainLoop', 'ppo.showLog', 'ppo.optimizeFile', 'ppo.parallelizeFile', 'ppo.tuneLoop', 'ppo.runOnCluster']) {
    assert.ok(caps.executeCommandProvider.commands.includes(c), `command ${c}`);
  }
  await s.conn.sendNotification(lsp.InitializedNotification.type, {});

  // didOpen → diagnostics of version 1: the PPO130 hint on the j loop, none on the k loop.
  await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'c', version: 1, text },
  });
  const d1 = await s.diagnosticsWhere(uri, (p) => p.version === 1, 'diagnostics of version 1');
  const hints1 = d1.diagnostics.filter((d) => d.code === 'PPO130');
  const jHint = hints1.find((d) => d.range.start.line === jLine);
  assert.ok(jHint, `PPO130 on the j loop (line ${jLine + 1}): ${JSON.stringify(d1.diagnostics)}`);
  assert.equal(jHint.severity, lsp.DiagnosticSeverity.Hint);
  assert.equal(jHint.source, 'ppo');
  assert.match(jHint.message, /#pragma omp parallel for/);
  assert.ok(jHint.data && typeof jHint.data.loop === 'string', 'data.loop');
  assert.match(jHint.codeDescription.href, /PPO130\.md$/);
  assert.ok(!hints1.some((d) => d.range.start.line === kLine), 'no PPO130 on the sequential k loop');

  // Code lenses: the verdict over every loop header; clicking runs ppo.explainLoop.
  const lenses = await s.request(lsp.CodeLensRequest.type, { textDocument: { uri } });
  const lensAt = (line) => lenses.find((l) => l.range.start.line === line);
  // Short, from the typed verdict: `parallel · collapse(2) · reduction(+: s) · …` (the hover
  // has the directive).
  assert.match(lensAt(jLine)?.command?.title ?? '', /^parallel( · |$)/);
  assert.match(lensAt(kLine)?.command?.title ?? '', /^sequential: PPO1\d\d/);
  assert.equal(lensAt(jLine).command.command, 'ppo.explainLoop');

  // Hover on the j loop's header: verdict, variables, the action offered.
  const hover = await s.request(lsp.HoverRequest.type, {
    textDocument: { uri },
    position: { line: jLine, character: text.split('\n')[jLine].indexOf('for') + 1 },
  });
  const md = typeof hover.contents === 'string' ? hover.contents : hover.contents.value;
  assert.match(md, /#pragma omp parallel for/);
  assert.match(md, /Parallelize loop \(OpenMP\)/);
  assert.match(md, /private/);

  // Code action at the j loop: the quick fix, listed without its edit, resolved, applied.
  const range = { start: { line: jLine, character: 0 }, end: { line: jLine, character: 0 } };
  const actions = await s.request(lsp.CodeActionRequest.type, {
    textDocument: { uri },
    range,
    context: { diagnostics: [jHint], triggerKind: lsp.CodeActionTriggerKind.Invoked },
  });
  const titles = actions.map((a) => a.title);
  const fix = actions.find((a) => a.title.startsWith('Parallelize loop (OpenMP)'));
  assert.ok(fix, `"Parallelize loop (OpenMP)" among ${JSON.stringify(titles)}`);
  assert.equal(fix.kind, 'quickfix');
  assert.equal(fix.isPreferred, true);
  assert.deepEqual(fix.diagnostics?.map((d) => d.code), ['PPO130']);
  assert.ok(actions.some((a) => a.title.startsWith('Parallelize file (OpenMP)')), 'the file action is offered too');
  assert.equal(fix.edit, undefined, 'a client with resolveSupport gets the edit from codeAction/resolve');
  const resolved = await s.request(lsp.CodeActionResolveRequest.type, fix);
  const edits = editsFor(resolved.edit, uri, 1);
  const text2 = applyEdits(text, edits);
  const lines2 = text2.split('\n');
  const j2 = lineOf(text2, 'for(j=0;j<n;j+=1)');
  assert.match(lines2[j2 - 1], /^\s*#pragma omp parallel for\b/, `the directive above the j loop:\n${lines2.slice(j2 - 2, j2 + 1).join('\n')}`);
  assert.equal((text2.match(/#pragma omp/g) ?? []).length, 1, 'exactly one directive inserted');

  // didChange with the new text (a change without a range replaces the document).
  await s.conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ text: text2 }],
  });
  const d2 = await s.diagnosticsWhere(uri, (p) => p.version === 2, 'diagnostics of version 2');
  const hints2 = d2.diagnostics.filter((d) => d.code === 'PPO130');
  assert.ok(!hints2.some((d) => d.range.start.line === j2), 'no more PPO130 on the annotated j loop');
  assert.equal(hints2.length, hints1.length - 1, 'the other PPO130 hints stay');
  assert.ok(!d2.diagnostics.some((d) => d.code === 'PPO120' || d.code === 'PPO121'), "ppo's own directive is not flagged");
  const serverCopy = await s.request('ppo/document', { uri });
  assert.equal(serverCopy.version, 2);
  assert.equal(serverCopy.text, text2);
  const lenses2 = await s.request(lsp.CodeLensRequest.type, { textDocument: { uri } });
  assert.match(lenses2.find((l) => l.range.start.line === j2)?.command?.title ?? '', /^parallel \(your directive is kept\)/);

  // ppo.explainLoop at a position (as the palette sends it) and with the lens's arguments.
  const k2 = lineOf(text2, 'for(k=0;k<n;k+=1)');
  const exK = await s.request(lsp.ExecuteCommandRequest.type, {
    command: 'ppo.explainLoop',
    arguments: [uri, { line: k2, character: 6 }],
  });
  assert.equal(exK.line, k2 + 1, "line is 1-based");
  assert.equal(exK.function, 'dgemm');
  assert.match(exK.verdict, /^sequential/);
  assert.match(exK.markdown, /PPO10\d/);
  const lensJ = lenses2.find((l) => l.range.start.line === j2);
  const exJ = await s.request(lsp.ExecuteCommandRequest.type, lensJ.command);
  assert.equal(exJ.line, j2 + 1);
  assert.match(exJ.verdict, /^parallel/);

  // ppo.parallelizeFile: the server sends workspace/applyEdit for the rest of the file.
  s.documents.set(uri, { version: 2, text: text2 });
  const par = await s.request(lsp.ExecuteCommandRequest.type, { command: 'ppo.parallelizeFile', arguments: [uri] });
  assert.equal(par.applied, true, JSON.stringify(par));
  assert.ok(par.edits >= 2, `edits: ${par.edits}`);
  assert.equal(s.applied.length, 1);
  const text3 = s.documents.get(uri).text;
  assert.ok((text3.match(/#pragma omp parallel for/g) ?? []).length >= 3, text3);
  const lines3 = text3.split('\n');
  const j3 = lineOf(text3, 'for(j=0;j<n;j+=1)');
  assert.equal(lines3[j3 - 1], lines2[j2 - 1], 'the j loop keeps its directive');
  assert.doesNotMatch(lines3[j3 - 2], /#pragma/, 'and gets no second one');

  // An unknown command is an error, not a crash.
  await assert.rejects(
    s.request(lsp.ExecuteCommandRequest.type, { command: 'ppo.nope', arguments: [] }),
    (e) => e.code === lsp.ErrorCodes.InvalidParams,
  );

  await s.request(lsp.ShutdownRequest.type, undefined);
  await s.conn.sendNotification(lsp.ExitNotification.type);
  const exit = await withTimeout(s.exited, 'the server to exit');
  assert.deepEqual(exit, { code: 0, signal: null }, `exit status; stderr: ${s.stderr}`);
});

test('ppo.showLog reads the log of a ppo -omp run', async (t) => {
  // A batch run writes OUT/.ppo/ppo.db; the server finds it above the output file.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ppo-showlog-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'in'));
  fs.copyFileSync(CORPUS_FILE, path.join(dir, 'in', 'dgemm.c'));
  const run = cp.spawnSync(ppoBin(), ['-i', path.join(dir, 'in'), '-o', path.join(dir, 'out'), '-omp', '-quiet'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `ppo -omp: ${run.stderr}`);
  const file = path.join(dir, 'out', 'dgemm.c');
  assert.ok(fs.existsSync(path.join(dir, 'out', '.ppo', 'ppo.db')), 'the run wrote its log database');

  const s = new Session();
  t.after(() => {
    s.conn.dispose();
    if (s.proc.exitCode === null) {
      s.proc.kill('SIGKILL');
    }
  });
  await s.request(lsp.InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {} });
  await s.conn.sendNotification(lsp.InitializedNotification.type, {});
  const uri = pathToFileURL(file).href;
  await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'c', version: 1, text: fs.readFileSync(file, 'utf8') },
  });
  const log = await s.request(lsp.ExecuteCommandRequest.type, { command: 'ppo.showLog', arguments: [uri] });
  assert.equal(log.file, 'dgemm.c');
  assert.ok(Array.isArray(log.events) && log.events.length >= 3, JSON.stringify(log));
  assert.match(log.text, /dgemm\.c/);
  assert.match(log.text, /omp parallel for/);
  // The log goes to the client's output too (the extension's output channel); the
  // notification may come after the answer.
  await withTimeout(
    (async () => {
      while (!s.logs.some((m) => m.startsWith('ppo: transformation log of dgemm.c'))) {
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
    "the transformation log in a window/logMessage",
    10000,
  );
  await s.request(lsp.ShutdownRequest.type, undefined);
  await s.conn.sendNotification(lsp.ExitNotification.type);
  assert.deepEqual(await withTimeout(s.exited, 'the server to exit'), { code: 0, signal: null });
});
