/**
 * Every bench once at a tiny size (BENCH_SMOKE=1), so none can rot unseen (issue 12, item 7). CI runs this after the
 * tests; it checks that each bench exits 0 and prints at least one measurement line in the shared format — never its
 * figures, which at these sizes mean nothing.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:smoke
 *
 * The landing and first-chart benches need the built web app (npm run build) and Chromium; the others a PostgreSQL to create their
 * throwaway databases next to (BENCH_DATABASE_URL, else TEST_DATABASE_URL).
 */
import { spawn } from 'node:child_process';
import { MEASUREMENT_LINE } from './support.js';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!url) {
  console.error(
    'bench:smoke needs BENCH_DATABASE_URL (or TEST_DATABASE_URL): a PostgreSQL to create its databases next to',
  );
  process.exit(2);
}

const benches: { name: string; args: string[]; env?: Record<string, string> }[] = [
  { name: 'trading (PGlite)', args: ['bench/trading-engine.ts'] },
  { name: 'trading (PostgreSQL)', args: ['bench/trading-engine.ts'], env: { BENCH_DATABASE_URL: url } },
  { name: 'clients', args: ['bench/clients-list.ts', url] },
  { name: 'import', args: ['bench/import.ts'], env: { BENCH_DATABASE_URL: url } },
  { name: 'landing', args: ['bench/landing-size.ts'] },
  { name: 'ws', args: ['bench/ws.ts'] },
  { name: 'first chart', args: ['bench/first-chart.ts'] },
];

function runOne(bench: (typeof benches)[number]): Promise<{ code: number | null; out: string; seconds: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', ...bench.args], {
      env: { ...process.env, ...bench.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out, seconds: (performance.now() - started) / 1000 }));
  });
}

let failed = 0;
const started = performance.now();
for (const bench of benches) {
  const { code, out, seconds } = await runOne(bench);
  const lines = out.split('\n').filter((l) => MEASUREMENT_LINE.test(l));
  const ok = code === 0 && lines.length > 0;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${bench.name}: exit ${code}, ${lines.length} measurement lines, ${seconds.toFixed(1)} s`,
  );
  if (!ok) {
    failed++;
    console.log(out.split('\n').slice(-30).join('\n'));
  }
}
console.log(
  `bench smoke: ${benches.length - failed} of ${benches.length} ran in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed ? 1 : 0);
