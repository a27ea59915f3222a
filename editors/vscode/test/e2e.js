// End-to-end test of the extension in real VS Code (code-server) driven through headless
// Chromium with playwright-core. Started by scripts/vscode_e2e.sh, which installs the .vsix,
// prepares the workspace and starts code-server.
//
// Environment: E2E_URL (code-server), E2E_WORKSPACE (the folder), E2E_FILE (the C file in it,
// name only), E2E_LINE (1-based line of the loop header to parallelize), E2E_ARTIFACTS
// (screenshots), CHROMIUM (default /usr/bin/chromium).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const url = need('E2E_URL');
const workspace = need('E2E_WORKSPACE');
const fileName = need('E2E_FILE');
const loopLine = Number(need('E2E_LINE'));
const artifacts = process.env.E2E_ARTIFACTS || path.resolve('target/e2e');
const filePath = path.join(workspace, fileName);
const STEP_MS = 45000;

function need(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`vscode_e2e: ${name} is not set`);
    process.exit(2);
  }
  return v;
}

function log(msg) {
  console.log(`vscode_e2e: ${msg}`);
}

/** Retries `fn` until it succeeds, `tries` times, with a pause and `recover` between tries. */
async function retry(what, tries, fn, recover) {
  let last;
  for (let i = 1; i <= tries; i++) {
    try {
      return await fn(i);
    } catch (e) {
      last = e;
      log(`${what}: try ${i}/${tries} failed: ${String(e.message).split('\n')[0]}`);
      if (recover) {
        await recover().catch(() => {});
      }
    }
  }
  throw new Error(`${what}: ${last && last.message}`);
}

/** The text of the editor's visible lines (Monaco renders spaces as U+00A0). */
async function visibleLines(page) {
  return page.$$eval('.editor-instance .monaco-editor .view-lines .view-line', (els) =>
    els
      .map((e) => ({ top: parseFloat(e.style.top) || 0, text: e.textContent.replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
}

/** Focuses the first editor group (Ctrl+1), where the C file is: a click could hit a code lens. */
async function focusEditor(page) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+1');
  await page.locator('.editor-instance .monaco-editor.focused').first().waitFor({ state: 'visible', timeout: 10000 });
}

async function goToLine(page, line) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`:${line}`);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10000 });
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await row.click();
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const started = Date.now();
  const original = fs.readFileSync(filePath, 'utf8');
  const header = original.split('\n')[loopLine - 1].trim();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.setDefaultTimeout(STEP_MS);
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') {
      consoleErrors.push(m.text());
    }
  });
  try {
    // The workbench, with the workspace folder.
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible' });
    await page.locator('.part.statusbar').waitFor({ state: 'visible' });
    log(`workbench loaded (${Date.now() - started} ms)`);

    // Open the file with Quick Open.
    await retry(
      `open ${fileName}`,
      3,
      async () => {
        await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => {});
        await page.keyboard.press('Control+P');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 10000 });
        await input.fill(fileName);
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: fileName }).first();
        await row.waitFor({ state: 'visible', timeout: 15000 });
        await page.keyboard.press('Enter');
        await page.locator('.tabs-container .tab', { hasText: fileName }).waitFor({ state: 'visible', timeout: 15000 });
        await page.locator('.editor-instance .monaco-editor .view-lines').waitFor({ state: 'visible', timeout: 15000 });
      },
      () => page.keyboard.press('Escape'),
    );
    log(`${fileName} open (${Date.now() - started} ms)`);

    // The extension started the server: the status bar says so.
    const ready = page.locator('.statusbar-item', { hasText: 'ppo: ready' });
    try {
      await ready.waitFor({ state: 'visible', timeout: STEP_MS });
    } catch (e) {
      const items = await page.$$eval('.statusbar-item', (els) => els.map((x) => x.textContent.trim()).filter(Boolean));
      throw new Error(`the status bar never showed "ppo: ready"; its items: ${JSON.stringify(items)}`);
    }
    log(`status bar: ppo: ready (${Date.now() - started} ms)`);

    // Lenses: over the loop header, the verdict in short (`parallel · reduction(+: s)`).
    await goToLine(page, loopLine);
    const lens = page.locator('.editor-instance .monaco-editor .codelens-decoration', { hasText: /\bparallel(\s·\s|\s*$)/ });
    await retry('the code lens', 3, () => lens.first().waitFor({ state: 'visible', timeout: 20000 }));
    const lensTexts = await page.$$eval('.editor-instance .monaco-editor .codelens-decoration', (els) => els.map((e) => e.textContent.replace(/\u00a0/g, ' ')));
    log(`code lenses: ${JSON.stringify(lensTexts)}`);
    if (!lensTexts.some((t) => /^sequential: PPO1\d\d/.test(t))) {
      throw new Error(`no "sequential: PPO1xx" lens among ${JSON.stringify(lensTexts)}`);
    }

    // Diagnostics: the workspace sets hints.parallelizable to "information", so the PPO130
    // diagnostics are in the Problems panel (hints are not listed there).
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'PPO130' });
    await retry('the PPO130 problems', 3, () => problem.first().waitFor({ state: 'visible', timeout: 20000 }));
    const problems = await page.$$eval('.markers-panel .monaco-list-row', (els) => els.map((e) => e.textContent.replace(/\u00a0/g, ' ')));
    const ppo130 = problems.filter((t) => t.includes('PPO130'));
    log(`problems: ${ppo130.length} PPO130 (${JSON.stringify(ppo130[0])} …)`);
    if (!ppo130.some((t) => t.includes(`[Ln ${loopLine},`))) {
      throw new Error(`no PPO130 problem on line ${loopLine}: ${JSON.stringify(problems)}`);
    }
    const problemsStatus = await page.locator('.statusbar-item[id="status.problems"]').first().getAttribute('aria-label').catch(() => null);
    log(`status bar problems: ${problemsStatus}`);

    // Quick Fix at the loop header: choose "Parallelize loop (OpenMP)".
    await retry(
      'the quick fix',
      3,
      async () => {
        await focusEditor(page);
        await goToLine(page, loopLine);
        await page.keyboard.press('Control+.');
        const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Parallelize loop (OpenMP)' }).first();
        await item.waitFor({ state: 'visible', timeout: 15000 });
        const offered = await page.$$eval('.action-widget .monaco-list-row', (els) => els.map((e) => e.textContent));
        log(`quick fixes: ${JSON.stringify(offered)}`);
        // Choose it with the keyboard, as a user does: move the focus onto it, then Enter.
        const focused = page.locator('.action-widget .monaco-list-row.focused');
        for (let i = 0; i < offered.length; i++) {
          const t = (await focused.count()) > 0 ? await focused.first().textContent() : '';
          if (t.includes('Parallelize loop (OpenMP)')) {
            break;
          }
          await page.keyboard.press('ArrowDown');
        }
        const chosen = (await focused.count()) > 0 ? await focused.first().textContent() : '';
        if (!chosen.includes('Parallelize loop (OpenMP)')) {
          throw new Error(`could not focus the quick fix (focused: ${JSON.stringify(chosen)})`);
        }
        await page.keyboard.press('Enter');
        await page
          .locator('.editor-instance .monaco-editor .view-line', { hasText: '#pragma omp parallel for' })
          .first()
          .waitFor({ state: 'visible', timeout: 15000 });
      },
      () => page.keyboard.press('Escape'),
    );
    const lines = await visibleLines(page);
    const at = lines.findIndex((l) => l.includes(header));
    if (at < 1 || !/^\s*#pragma omp parallel for\b/.test(lines[at - 1])) {
      throw new Error(`the directive is not above the loop in the editor:\n${lines.join('\n')}`);
    }
    log(`editor: ${lines[at - 1].trim()}`);

    // The server analysed the edited text: the lens of the loop says the directive is kept.
    await page
      .locator('.editor-instance .monaco-editor .codelens-decoration', { hasText: 'parallel (your directive is kept)' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    log('lens updated: parallel (your directive is kept)');

    // Save, and read the file on disk (until it has the directive: a read can catch the
    // editor's write half done).
    await page.keyboard.press('Control+S');
    const hasDirective = (text) => {
      const ls = text.split('\n');
      const at = ls.findIndex((l) => l.trim() === header);
      return at >= 1 && /^\s*#pragma omp parallel for\b/.test(ls[at - 1]) ? ls : null;
    };
    const deadline = Date.now() + 20000;
    let saved = '';
    let savedLines = null;
    while (Date.now() < deadline && !(savedLines = hasDirective((saved = fs.readFileSync(filePath, 'utf8'))))) {
      await page.waitForTimeout(200);
    }
    if (!savedLines) {
      throw new Error(`the saved file has no directive above "${header}"`);
    }
    const h = savedLines.findIndex((l) => l.trim() === header);
    if ((saved.match(/#pragma omp/g) || []).length !== 1) {
      throw new Error('the saved file has more than the one directive');
    }
    log(`saved: ${savedLines[h - 1].trim()}`);

    // ppo: Parallelize File from the palette: the server's workspace/applyEdit adds the other
    // loops' directives; the extension reports it; saved, the file has all three.
    await focusEditor(page);
    await runCommand(page, 'ppo: Parallelize File');
    await page.locator('.notifications-toasts', { hasText: 'ppo: parallelized' }).first().waitFor({ state: 'visible', timeout: 20000 });
    await page.keyboard.press('Control+S');
    const deadline2 = Date.now() + 20000;
    let directives = 0;
    while (Date.now() < deadline2) {
      directives = (fs.readFileSync(filePath, 'utf8').match(/#pragma omp parallel for/g) || []).length;
      if (directives >= 3) {
        break;
      }
      await page.waitForTimeout(200);
    }
    if (directives < 3) {
      throw new Error(`after ppo: Parallelize File and a save, the file has ${directives} directive(s), not 3`);
    }
    log(`ppo: Parallelize File: ${directives} directives in the saved file`);

    // ppo: Explain Loop from the palette, at the cursor: a Markdown document with the explanation.
    await focusEditor(page);
    await goToLine(page, loopLine + 1);
    await runCommand(page, 'ppo: Explain Loop');
    // The explanation's table of variables (text the C file does not have).
    await page
      .locator('.editor-instance .monaco-editor .view-line', { hasText: '| variable | class | why |' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    log('ppo: Explain Loop opened the explanation');

    await page.screenshot({ path: path.join(artifacts, 'vscode-e2e.png') });

    // A ppo.server.path that does not exist: the extension restarts the client, which fails,
    // and the status bar says so; the right path again: ready again.
    const settingsFile = path.join(workspace, '.vscode', 'settings.json');
    const settings = fs.readFileSync(settingsFile, 'utf8');
    const good = JSON.parse(settings)['ppo.server.path'];
    fs.writeFileSync(settingsFile, settings.replace(JSON.stringify(good), JSON.stringify(`${good}-missing`)));
    await page.locator('.statusbar-item', { hasText: 'ppo: error' }).waitFor({ state: 'visible', timeout: 30000 });
    log('a missing server binary: status bar shows ppo: error');
    fs.writeFileSync(settingsFile, settings);
    await page.locator('.statusbar-item', { hasText: 'ppo: ready' }).waitFor({ state: 'visible', timeout: 30000 });
    log('the right path again: ppo: ready');
    log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshot ${path.join(artifacts, 'vscode-e2e.png')}`);
  } catch (e) {
    const shot = path.join(artifacts, 'vscode-e2e-failure.png');
    await page.screenshot({ path: shot }).catch(() => {});
    console.error(`vscode_e2e: FAIL: ${e.message}\n  screenshot: ${shot}`);
    if (consoleErrors.length > 0) {
      console.error(`  browser console errors (last 10):\n    ${consoleErrors.slice(-10).join('\n    ')}`);
    }
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(`vscode_e2e: FAIL: ${e.stack || e}`);
  process.exit(1);
});
