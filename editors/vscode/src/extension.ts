// The ppo extension: starts `ppo lsp` and connects VS Code to it.
//
// Everything a user sees about loops (code lenses, diagnostics, hovers, quick fixes) comes from
// the server through vscode-languageclient. The six commands of the palette are the server's
// own (`workspace/executeCommand`: the client registers one VS Code command per command the
// server announces); the middleware below fills in their arguments when they are run from the
// palette (the active editor's document, the cursor) and shows their results.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  ErrorHandler,
  ExecuteCommandSignature,
  LanguageClient,
  LanguageClientOptions,
  Message,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

type Status = 'starting' | 'ready' | 'stopped' | 'error';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let lastError: string | undefined;

/** The `ppo` binary: the `ppo.server.path` setting, else `bin/ppo` in the extension, else `ppo` on PATH. */
export function serverPath(extensionPath: string, configured: string | undefined): string {
  if (configured && configured.trim() !== '') {
    const p = configured.trim();
    if (p.startsWith('~/')) {
      return path.join(process.env.HOME ?? '', p.slice(2));
    }
    return p;
  }
  const exe = process.platform === 'win32' ? 'ppo.exe' : 'ppo';
  const bundled = path.join(extensionPath, 'bin', exe);
  if (fs.existsSync(bundled)) {
    try {
      // A .vsix may lose the executable bit on the way.
      fs.accessSync(bundled, fs.constants.X_OK);
    } catch {
      try {
        fs.chmodSync(bundled, 0o755);
      } catch {
        // read-only installation: the start fails and says so
      }
    }
    return bundled;
  }
  return exe;
}

/** The server's settings: the `ppo` section less the client's own keys (`server`, `trace`). */
function serverSettings(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('ppo');
  const keys = [
    'target',
    'thresholds',
    'hints',
    'includePaths',
    'defines',
    'undefines',
    'compileCommands',
    'logDb',
    'docsBaseUrl',
    'debounceMs',
    'maxFileSize',
  ];
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = cfg.get(k);
    if (v !== undefined) {
      out[k] = v;
    }
  }
  return out;
}

function setStatus(s: Status, detail?: string): void {
  const icon = { starting: '$(sync~spin)', ready: '$(check)', stopped: '$(circle-slash)', error: '$(error)' }[s];
  statusItem.text = `${icon} ppo: ${s}`;
  statusItem.tooltip = detail ? `ppo language server: ${s}\n${detail}` : `ppo language server: ${s} (click for its output)`;
  statusItem.backgroundColor = s === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  statusItem.show();
}

function activeDocument(): vscode.TextEditor | undefined {
  const e = vscode.window.activeTextEditor;
  if (e && (e.document.languageId === 'c' || e.document.languageId === 'cpp')) {
    return e;
  }
  return undefined;
}

/** Read-only documents of the `ppo:` scheme: the explanations and logs the commands show. */
const VIRTUAL_SCHEME = 'ppo';
const virtualDocs = new Map<string, string>();
const virtualChanged = new vscode.EventEmitter<vscode.Uri>();
const virtualProvider: vscode.TextDocumentContentProvider = {
  onDidChange: virtualChanged.event,
  provideTextDocumentContent: (uri) => virtualDocs.get(uri.toString()) ?? '',
};

async function showText(name: string, content: string): Promise<void> {
  const uri = vscode.Uri.from({ scheme: VIRTUAL_SCHEME, path: `/${name}` });
  virtualDocs.set(uri.toString(), content);
  virtualChanged.fire(uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: false });
}

/** Runs a server command: arguments from the active editor when the palette gave none, results shown. */
async function executeCommand(command: string, args: unknown[], next: ExecuteCommandSignature): Promise<unknown> {
  const c = client;
  if (!c) {
    return undefined;
  }
  if (args.length === 0) {
    const editor = activeDocument();
    if (!editor) {
      void vscode.window.showWarningMessage(`${command}: open a C file first`);
      return undefined;
    }
    const uri = c.code2ProtocolConverter.asUri(editor.document.uri);
    // The server analyses the version it has; a dirty buffer is already synced.
    if (command === 'ppo.explainLoop' || command === 'ppo.tuneLoop') {
      const pos = editor.selection.active;
      args = [uri, { line: pos.line, character: pos.character }];
    } else {
      args = [uri];
    }
  }
  let result: any;
  try {
    result = await next(command, args);
  } catch {
    // vscode-languageclient has shown the error (and logged it in the output channel).
    return undefined;
  }
  if (result === undefined || result === null) {
    return result;
  }
  switch (command) {
    case 'ppo.explainLoop':
      if (typeof result.markdown === 'string') {
        await showText(`loop ${String(result.loop).replace(/[#/]/g, '_')}.md`, result.markdown);
      }
      break;
    case 'ppo.showLog':
      if (typeof result.text === 'string') {
        await showText(`${path.basename(String(result.file || 'ppo'))}.log`, result.text);
      }
      break;
    case 'ppo.runOnCluster':
      // The program's output came as log messages, in the output channel: show it.
      output.show(true);
      break;
    case 'ppo.parallelizeFile':
    case 'ppo.optimizeFile':
      if (result.applied) {
        const what = command === 'ppo.parallelizeFile' ? 'parallelized' : 'optimized';
        void vscode.window.showInformationMessage(`ppo: ${what} (${result.edits} edit${result.edits === 1 ? '' : 's'})`);
      }
      if (Array.isArray(result.events) && result.events.length > 0) {
        output.appendLine(`[${command}]`);
        for (const e of result.events) {
          output.appendLine(`  ${e}`);
        }
      }
      break;
  }
  return result;
}

function errorHandler(): ErrorHandler {
  let restarts = 0;
  return {
    error(error: Error, _message: Message | undefined, count: number | undefined) {
      lastError = error.message;
      return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
    },
    closed() {
      restarts += 1;
      if (restarts <= 4) {
        lastError = 'the server stopped; restarting it';
        return { action: CloseAction.Restart };
      }
      lastError = 'the server stopped 5 times; not restarted (ppo: Restart Language Server)';
      setStatus('error', lastError);
      return { action: CloseAction.DoNotRestart, message: `ppo: ${lastError}` };
    },
  };
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('ppo');
  const command = serverPath(context.extensionPath, cfg.get<string>('server.path'));
  const extra = cfg.get<string[]>('server.extraArgs') ?? [];
  output.appendLine(`starting ${command} lsp ${extra.join(' ')}`.trimEnd());
  const serverOptions: ServerOptions = {
    run: { command, args: ['lsp', ...extra] },
    debug: { command, args: ['lsp', ...extra] },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'c' },
      { scheme: 'file', language: 'cpp' },
    ],
    initializationOptions: { ppo: serverSettings() },
    synchronize: { configurationSection: 'ppo' },
    outputChannel: output,
    traceOutputChannel: output,
    errorHandler: errorHandler(),
    middleware: { executeCommand },
  };
  const c = new LanguageClient('ppo', 'ppo', serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    if (e.newState === State.Starting) {
      setStatus('starting');
    } else if (e.newState === State.Running) {
      setStatus('ready', c.initializeResult?.serverInfo?.version ? `version ${c.initializeResult.serverInfo.version}` : undefined);
    } else if (e.newState === State.Stopped) {
      if (lastError) {
        setStatus('error', lastError);
      } else {
        setStatus('stopped');
      }
    }
  });
  setStatus('starting');
  try {
    await c.start();
  } catch (e) {
    lastError = `could not start ${command}: ${e instanceof Error ? e.message : String(e)}`;
    output.appendLine(lastError);
    setStatus('error', lastError);
    void vscode.window
      .showErrorMessage(`ppo: ${lastError}. Set ppo.server.path to the ppo binary.`, 'Open Settings')
      .then((pick) => {
        if (pick) {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'ppo.server.path');
        }
      });
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop(5000);
    } catch {
      // already stopped
    }
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('ppo');
  statusItem = vscode.window.createStatusBarItem('ppo.status', vscode.StatusBarAlignment.Left, 0);
  statusItem.name = 'ppo language server';
  statusItem.command = 'ppo.showOutput';
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand('ppo.showOutput', () => output.show(true)),
    vscode.workspace.registerTextDocumentContentProvider(VIRTUAL_SCHEME, virtualProvider),
    vscode.commands.registerCommand('ppo.restartServer', async () => {
      lastError = undefined;
      await stopClient();
      await startClient(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // The server's own settings travel by didChangeConfiguration; the binary needs a restart.
      if (e.affectsConfiguration('ppo.server')) {
        lastError = undefined;
        await stopClient();
        await startClient(context);
      }
    }),
    { dispose: () => void stopClient() },
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
