/**
 * One run of every bench at full size, one after another, each printing as it goes, then every measurement line
 * together (issue 12: docs/operations.md's figures come from one such run on a quiet machine). Each bench checks the
 * load itself and refuses above 1.5 (exit 2) unless BENCH_ALLOW_LOAD=1.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *   BENCH_CLIENTS_DATABASE_URL=postgres://postgres@127.0.0.1:5432/brokerage_bulk npm run bench:all
 *
 * BENCH_CLIENTS_DATABASE_URL: the clients bench's database, seeded once with a million leads
 * (`DATABASE_URL=… npm run seed:bulk -- --clients 1000000`); without it the bench seeds BENCH_DATABASE_URL's.
 * BENCH_ONLY_BENCHES: a comma-separated part of the list, by name (e.g. `ws,first chart`).
 */
import { execSync } from 'node:child_process';
import os from 'node:os';
import { benches, runBench } from './run-list.js';

const url = process.env.BENCH_DATABASE_URL;
if (!url) {
  console.error('bench:all needs BENCH_DATABASE_URL: a PostgreSQL to create its databases next to');
  process.exit(2);
}
const only = process.env.BENCH_ONLY_BENCHES?.split(',').map((s) => s.trim());
const list = benches(url, process.env.BENCH_CLIENTS_DATABASE_URL ?? url).filter((b) => !only || only.includes(b.name));
let commit = 'unknown';
try {
  commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
} catch {
  // not a git checkout
}
console.log(`bench:all at commit ${commit}, ${new Date().toISOString()}`);
const summary: string[] = [];
let failed = 0;
/**
 * Before each bench the run waits (up to 10 minutes) for the one-minute load average to fall below 1: the previous
 * bench's own work keeps it up for a while, and each bench refuses to measure above 1.5.
 */
async function settle(): Promise<void> {
  const started = Date.now();
  while (os.loadavg()[0]! >= 1 && Date.now() - started < 600_000) await new Promise((r) => setTimeout(r, 5000));
  const waited = (Date.now() - started) / 1000;
  if (waited >= 1)
    console.log(`(waited ${waited.toFixed(0)} s for the load average to settle: ${os.loadavg()[0]!.toFixed(2)})`);
}

for (const bench of list) {
  await settle();
  console.log(`\n===== ${bench.name} =====`);
  const { code, seconds, lines } = await runBench(bench, {}, true);
  console.log(`===== ${bench.name}: exit ${code} in ${seconds.toFixed(0)} s`);
  if (code !== 0) failed++;
  summary.push(`# ${bench.name} (exit ${code})`, ...lines);
}
console.log(`\n===== every measurement (commit ${commit}) =====\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
