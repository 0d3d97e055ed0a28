/**
 * Trading screen, navigation → first chart (issue 12, item 6): the production build served by the real server, each
 * visit in a fresh (cold) Chromium context, timed from navigation start to the `trading:first-chart` mark (the first
 * candles drawn and one animation frame later; PriceChart.tsx). Two screens: /demo (no sign-in) and /trading (a demo
 * trader's session, set in the context before the visit, so the session check is part of the time).
 *
 * Baseline, in the same run and from the same server: a bare page with lightweight-charts alone (bundled here by
 * esbuild), fetching the same candles from the same API and drawing them the same way — the library's and the API's
 * own time, without our application around them. Median of BENCH_VISITS cold visits each (default 7).
 *
 *   npm run build && npm run bench:first-chart
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../e2e/support/browser.js';
import { startServer } from '../e2e/support/server.js';
import { benchSize, guardLoad, printMarkdown, report } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The target of issue 12: navigation → first candles ≤ 1 s on localhost. */
const TARGET_MS = 1000;

const BASELINE_ENTRY = `
import { CandlestickSeries, ColorType, createChart } from 'lightweight-charts';
const el = document.getElementById('chart');
const chart = createChart(el, {
  autoSize: true,
  layout: { background: { type: ColorType.Solid, color: '#131722' }, textColor: '#d1d4dc' },
  timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 8 },
});
const series = chart.addSeries(CandlestickSeries, { upColor: '#26a69a', downColor: '#ef5350', borderVisible: false });
fetch('/api/prices/EURUSD/candles?interval=1m')
  .then((r) => r.json())
  .then((res) => {
    series.setData(res.candles);
    chart.timeScale().scrollToRealTime();
    requestAnimationFrame(() => performance.mark('trading:first-chart'));
  });
`;

/** A copy of the built app with the baseline page beside it (the build itself is left untouched). */
async function webDistWithBaseline(): Promise<string> {
  const dist = path.join(root, 'apps/web/dist');
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error('apps/web/dist is missing: run `npm run build`');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-first-chart-'));
  fs.cpSync(dist, dir, { recursive: true });
  const entry = path.join(root, 'bench/.first-chart-baseline.js');
  fs.writeFileSync(entry, BASELINE_ENTRY);
  try {
    await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      outfile: path.join(dir, 'bench-baseline/chart.js'),
      logLevel: 'error',
    });
  } finally {
    fs.rmSync(entry, { force: true });
  }
  fs.writeFileSync(
    path.join(dir, 'bench-baseline/index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>baseline</title>' +
      '<style>html,body{margin:0;height:100%;background:#131722}#chart{height:100vh}</style></head>' +
      '<body><div id="chart"></div><script type="module" src="/bench-baseline/chart.js"></script></body></html>',
  );
  return dir;
}

/** One cold visit: a new context (empty cache, no service worker), navigation start → the mark. */
async function visit(browser: Browser, url: string, session?: { base: string; email: string; password: string }) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  try {
    if (session) {
      const res = await context.request.post(`${session.base}/api/auth/login`, {
        data: { email: session.email, password: session.password },
      });
      if (!res.ok()) throw new Error(`sign-in failed: ${res.status()} ${await res.text()}`);
    }
    const page = await context.newPage();
    await page.goto(url);
    const handle = await page.waitForFunction(
      () => performance.getEntriesByName('trading:first-chart')[0]?.startTime ?? null,
      undefined,
      { timeout: 30_000, polling: 20 },
    );
    return Number(await handle.jsonValue());
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  guardLoad();
  const visits = benchSize('BENCH_VISITS', 7, 1);
  const webDist = await webDistWithBaseline();
  const server = await startServer({ DEMO_DATA: '1', WEB_DIST: webDist });
  const browser = await launchBrowser();
  try {
    const trader = /^\s+client\s+(\S+)\s+(\S+)$/m.exec(server.output());
    if (!trader) throw new Error(`no demo trader login in the server's output:\n${server.output()}`);
    const session = { base: server.url, email: trader[1]!, password: trader[2]! };
    // One warm-up of each, so the server's own first-call costs (JIT, the first candles query) are not in a figure.
    await visit(browser, `${server.url}/demo`);
    await visit(browser, `${server.url}/bench-baseline/`);

    const runs = { demo: [] as number[], trading: [] as number[], baseline: [] as number[] };
    for (let i = 0; i < visits; i++) {
      // Interleaved, so a slow moment of the machine touches all three alike.
      runs.baseline.push(await visit(browser, `${server.url}/bench-baseline/`));
      runs.demo.push(await visit(browser, `${server.url}/demo`));
      runs.trading.push(await visit(browser, `${server.url}/trading`, session));
    }
    const fmt = (xs: number[]) => xs.map((x) => Math.round(x)).join(', ');
    console.log(`visits (ms): /demo ${fmt(runs.demo)}; /trading ${fmt(runs.trading)}; baseline ${fmt(runs.baseline)}`);
    console.log(`target: ≤ ${TARGET_MS} ms from navigation to the first candles`);
    const base = median(runs.baseline);
    report('first chart /demo (median of cold visits)', median(runs.demo), base, 'ms', 0);
    report('first chart /trading signed in (median of cold visits)', median(runs.trading), base, 'ms', 0);
    printMarkdown();
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(webDist, { recursive: true, force: true });
  }
}

await main();
