/**
 * Every bench and how it is run: `npm run bench:smoke` runs them all once at a tiny size (BENCH_SMOKE=1) and
 * `npm run bench:all` runs them all at full size, one after another (issue 12: one quiet run of every bench).
 */
import { spawn } from 'node:child_process';
import { MEASUREMENT_LINE } from './support.js';

export interface Bench {
  name: string;
  args: string[];
  /** Laid over the environment; an empty value removes the variable (the PGlite run must not see a database URL). */
  env?: Record<string, string>;
}

/**
 * `url`: a PostgreSQL the benches create their throwaway databases next to; `clientsUrl`: the database of the clients
 * bench (a million leads at full size, seeded once by `npm run seed:bulk`; a smoke run makes its own next to `url`).
 */
export function benches(url: string, clientsUrl = url): Bench[] {
  return [
    { name: 'trading (PGlite)', args: ['bench/trading-engine.ts'], env: { BENCH_DATABASE_URL: '' } },
    { name: 'trading (PostgreSQL)', args: ['bench/trading-engine.ts'], env: { BENCH_DATABASE_URL: url } },
    { name: 'place-trade profile', args: ['bench/place-trade-profile.ts'], env: { BENCH_DATABASE_URL: url } },
    { name: 'clients', args: ['bench/clients-list.ts', clientsUrl] },
    { name: 'import', args: ['bench/import.ts'], env: { BENCH_DATABASE_URL: url } },
    { name: 'landing', args: ['bench/landing-size.ts'] },
    { name: 'ws', args: ['bench/ws.ts'], env: { BENCH_DATABASE_URL: url } },
    { name: 'first chart', args: ['bench/first-chart.ts'] },
  ];
}

/** Runs one bench in its own process; `echo` prints its output as it comes. */
export function runBench(
  bench: Bench,
  env: Record<string, string>,
  echo = false,
): Promise<{ code: number | null; out: string; seconds: number; lines: string[] }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const merged: NodeJS.ProcessEnv = { ...process.env, ...bench.env, ...env };
    for (const [key, value] of Object.entries(merged)) if (value === '') delete merged[key];
    const child = spawn(process.execPath, ['--import', 'tsx', ...bench.args], {
      env: merged,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const take = (d: Buffer) => {
      out += d.toString();
      if (echo) process.stdout.write(d);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) =>
      resolve({
        code,
        out,
        seconds: (performance.now() - started) / 1000,
        lines: out.split('\n').filter((l) => MEASUREMENT_LINE.test(l)),
      }),
    );
  });
}
