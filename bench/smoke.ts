/**
 * Every bench once at a tiny size (BENCH_SMOKE=1), so none can rot unseen (issue 12, item 7). CI runs this after the
 * tests; it checks that each bench exits 0 and prints at least one measurement line in the shared format — never its
 * figures, which at these sizes mean nothing.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:smoke
 *
 * The landing and first-chart benches need the built web app (npm run build) and Chromium; the others a PostgreSQL
 * to create their throwaway databases next to (BENCH_DATABASE_URL, else TEST_DATABASE_URL).
 */
import { benches, runBench } from './run-list.js';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!url) {
  console.error(
    'bench:smoke needs BENCH_DATABASE_URL (or TEST_DATABASE_URL): a PostgreSQL to create its databases next to',
  );
  process.exit(2);
}

const list = benches(url);
let failed = 0;
const started = performance.now();
for (const bench of list) {
  const { code, out, seconds, lines } = await runBench(bench, { BENCH_SMOKE: '1' });
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
  `bench smoke: ${list.length - failed} of ${list.length} ran in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed ? 1 : 0);
