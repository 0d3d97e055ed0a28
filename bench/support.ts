/**
 * What every bench shares (issue 12, item 7): the quiet-machine check, the smoke mode CI runs, and the one line format
 * of a measurement:
 *
 *   <name> ours <value> <unit> baseline <value> <unit> ratio <ours / baseline>
 *
 * The ratio is always ours divided by the baseline: for a rate (unit …/s) higher is better, for a time or a latency
 * lower is better; the unit says which.
 */
import os from 'node:os';

/** BENCH_SMOKE=1: a tiny size so CI can prove the bench still runs; its figures mean nothing. Implies BENCH_ALLOW_LOAD. */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** The highest one-minute load average at which a figure is still worth printing. */
export const MAX_LOAD = 1.5;

/**
 * Prints the machine (CPUs, load averages, node) and refuses to measure (exit 2) on a busy machine: a figure taken
 * beside other work is noise. BENCH_ALLOW_LOAD=1 (or BENCH_SMOKE=1) measures anyway.
 */
export function guardLoad(): void {
  const [one, five, fifteen] = os.loadavg();
  console.log(
    `machine: ${os.cpus().length} CPUs, load average ${one!.toFixed(2)} ${five!.toFixed(2)} ${fifteen!.toFixed(2)}; node ${process.version}${SMOKE ? '; SMOKE RUN (tiny sizes, figures mean nothing)' : ''}`,
  );
  if (one! > MAX_LOAD && !SMOKE && process.env.BENCH_ALLOW_LOAD !== '1') {
    console.error(
      `refusing to measure: the load average is ${one!.toFixed(2)}, above ${MAX_LOAD}. Stop what else runs (tests, builds, other benches) ` +
        'and wait for it to settle, or set BENCH_ALLOW_LOAD=1 to print figures that will be noise.',
    );
    process.exit(2);
  }
}

/** A size from the environment, or its full default, or its smoke size under BENCH_SMOKE. */
export function benchSize(name: string, full: number, smoke: number): number {
  const set = process.env[name];
  if (set !== undefined && set !== '') return Number(set);
  return SMOKE ? smoke : full;
}

export interface Measurement {
  name: string;
  ours: number;
  baseline: number;
  unit: string;
  ratio: number;
}

const measured: Measurement[] = [];

/** Prints one measurement line and keeps it for the markdown table. */
export function report(name: string, ours: number, baseline: number, unit: string, digits = 1): Measurement {
  const m = { name, ours, baseline, unit, ratio: ours / baseline };
  measured.push(m);
  console.log(
    `${name} ours ${ours.toFixed(digits)} ${unit} baseline ${baseline.toFixed(digits)} ${unit} ratio ${m.ratio.toFixed(2)}`,
  );
  return m;
}

/** With BENCH_MARKDOWN=1, the measurements as the rows of docs/operations.md's table. */
export function printMarkdown(): void {
  if (!process.env.BENCH_MARKDOWN) return;
  console.log('\n| Measurement | Ours | Baseline | Ratio |\n|---|---:|---:|---:|');
  for (const m of measured)
    console.log(
      `| ${m.name} | ${m.ours.toFixed(1)} ${m.unit} | ${m.baseline.toFixed(1)} ${m.unit} | ${m.ratio.toFixed(2)} |`,
    );
}

/** The line format above, for the smoke runner to check a bench's output against. */
export const MEASUREMENT_LINE = /^(.+) ours (-?[\d.]+) (\S+) baseline (-?[\d.]+) (\S+) ratio ([\d.]+|Infinity|NaN)$/m;
