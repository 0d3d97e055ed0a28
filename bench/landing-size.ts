/**
 * Page weight of the public landing page (issue 5): loads / in Chromium against the real server serving the built web
 * app, records every JavaScript and CSS file the page requests until the network is idle (without opening the login
 * modal, which loads on demand), and sums their gzipped sizes (level 9, as a server or CDN would send them).
 * Fails (exit 1) when the JavaScript is over its budget. Build the web app first (`npm run build`).
 *
 *   npm run bench:landing
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.js';
import { startServer } from '../e2e/support/server.js';
import { guardLoad, report } from './support.js';

/** The budget of docs/operations.md, "Page weight": gzipped JavaScript of the landing page. */
export const LANDING_JS_BUDGET_BYTES = 120 * 1024;

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  guardLoad();
  const server = await startServer({ DEMO_DATA: '0' });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const files = new Map<string, Promise<Buffer>>();
    page.on('response', (res) => {
      const { pathname } = new URL(res.url());
      if (/\.(js|css)$/.test(pathname)) files.set(pathname, res.body());
    });
    const started = Date.now();
    await page.goto(`${server.url}/`);
    await page.getByTestId('assets-table').waitFor();
    const tableMs = Date.now() - started;
    await page.waitForLoadState('networkidle');

    const rows: { file: string; raw: number; gzip: number }[] = [];
    for (const [file, body] of files) {
      const buf = await body;
      rows.push({ file: path.basename(file), raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length });
    }
    rows.sort((a, b) => b.gzip - a.gzip);
    const sum = (ext: string) => rows.filter((r) => r.file.endsWith(ext)).reduce((s, r) => s + r.gzip, 0);
    console.log('file'.padEnd(40), 'raw'.padStart(10), 'gzip'.padStart(10));
    for (const r of rows) console.log(r.file.padEnd(40), kb(r.raw).padStart(10), kb(r.gzip).padStart(10));
    const js = sum('.js');
    console.log(`\nJavaScript: ${kb(js)} gzipped in ${rows.filter((r) => r.file.endsWith('.js')).length} files`);
    console.log(`CSS: ${kb(sum('.css'))} gzipped`);
    console.log(`Budget: ${kb(LANDING_JS_BUDGET_BYTES)} of JavaScript`);
    console.log(`Assets table with live prices shown ${tableMs} ms after navigation (local server)`);
    // No program to measure beside: the baseline of page weight is its budget (docs/operations.md).
    report('landing page JavaScript (gzip) vs its budget', js / 1024, LANDING_JS_BUDGET_BYTES / 1024, 'KB');
    if (js > LANDING_JS_BUDGET_BYTES) {
      console.error('Over budget');
      process.exitCode = 1;
    }
  } finally {
    await browser.close();
    await server.stop();
  }
}

await main();
