#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isHex } from './bytes.js';
import { parseHead, readConsistency, readHead, type ConsistencyProof } from './format.js';
import type { Head } from './merkle.js';
import { formatReason, verifyFile, type Lang, type Verdict } from './verify.js';

/**
 * brokerage-verify proof.json [--head saved-head.json] [--consistency consistency.json] [--server https://host]
 *                  [--key hex] [--lang ru|en]
 * Exit status: 0 when every applicable check of every proof passes, 1 when one fails, 2 when the command cannot run
 * (usage, an unreadable file, a server that does not answer) — so a script can tell "the proof is bad" from "I could
 * not check".
 */

const USAGE = {
  en: `Usage: brokerage-verify proof.json [--head saved-head.json] [--consistency consistency.json]
                        [--server https://host] [--key <64 hex digits>] [--lang ru|en]
  proof.json         a trade proof or a file of proofs (decisions.md D27)
  --head             a log head you saved earlier: also check that the log only grew since
  --consistency      the /api/price-log/consistency answer between your head and the proof's
  --server           fetch that answer from this site instead (only with --head)
  --key              the log's public key you trust (else the key written in the file is used)
  --lang             language of the report (default ru)
Exit status: 0 all checks pass, 1 a check fails, 2 the check could not run.`,
  ru: `Запуск: brokerage-verify proof.json [--head saved-head.json] [--consistency consistency.json]
                        [--server https://host] [--key <64 шестнадцатеричные цифры>] [--lang ru|en]
  proof.json         доказательство сделки или файл доказательств (decisions.md D27)
  --head             вершина журнала, сохранённая вами раньше: проверить, что журнал с тех пор только дописывался
  --consistency      ответ /api/price-log/consistency между вашей вершиной и вершиной доказательства
  --server           получить этот ответ с сайта (только вместе с --head)
  --key              открытый ключ журнала, которому вы доверяете (иначе берётся ключ из файла)
  --lang             язык отчёта (по умолчанию ru)
Код выхода: 0 — все проверки пройдены, 1 — проверка не пройдена, 2 — проверить не удалось.`,
};

class UsageError extends Error {}

function say(lang: Lang, ru: string, en: string): string {
  return lang === 'ru' ? ru : en;
}

async function readText(path: string, lang: Lang): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? say(lang, 'нет такого файла', 'no such file')
        : String(error);
    throw new UsageError(say(lang, `Не удалось прочитать ${path}: ${reason}.`, `Cannot read ${path}: ${reason}.`));
  }
}

async function readJson(path: string, lang: Lang): Promise<unknown> {
  const text = await readText(path, lang);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path}: ${formatReason(error, lang)}.`);
  }
}

/** The heads the proofs of a file are checked against (none when the file is not readable: its verdict says why). */
function proofHeads(text: string): Head[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const docs =
    typeof doc === 'object' && doc !== null && Array.isArray((doc as { proofs?: unknown }).proofs)
      ? ((doc as { proofs: unknown[] }).proofs ?? [])
      : [doc];
  const heads: Head[] = [];
  for (const d of docs) {
    try {
      heads.push(readHead((d as { head?: unknown }).head, 'head'));
    } catch {
      // A proof without a readable head fails its own 'format' step.
    }
  }
  return heads;
}

async function fetchConsistency(server: string, first: number, second: number, lang: Lang): Promise<ConsistencyProof> {
  const url = `${server}/api/price-log/consistency?first=${first}&second=${second}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (error) {
    throw new UsageError(
      say(
        lang,
        `Сервер не ответил (${url}): ${String(error)}.`,
        `The server did not answer (${url}): ${String(error)}.`,
      ),
    );
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
    throw new UsageError(
      say(lang, `Сервер ответил ${response.status} на ${url}`, `The server answered ${response.status} to ${url}`) +
        (typeof detail === 'string' ? `: ${detail}` : '.'),
    );
  }
  try {
    return readConsistency(body);
  } catch (error) {
    throw new UsageError(`${url}: ${formatReason(error, lang)}.`);
  }
}

function print(verdict: Verdict): void {
  for (const step of verdict.steps) {
    const mark = step.ok === true ? '✓' : step.ok === false ? '✗' : '–';
    console.log(`${mark} ${step.text}`);
  }
  console.log(`\n${verdict.ok ? '✓' : '✗'} ${verdict.summary}`);
}

async function main(argv: string[]): Promise<number> {
  let values: { head?: string; consistency?: string; server?: string; key?: string; lang?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        head: { type: 'string' },
        consistency: { type: 'string' },
        server: { type: 'string' },
        key: { type: 'string' },
        lang: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE.en}`);
    return 2;
  }
  if (values.lang !== undefined && values.lang !== 'ru' && values.lang !== 'en') {
    console.error(`--lang ${values.lang}: ru or en.\n\n${USAGE.en}`);
    return 2;
  }
  const lang: Lang = values.lang === 'en' ? 'en' : 'ru';
  if (values.help) {
    console.log(USAGE[lang]);
    return 0;
  }
  try {
    if (positionals.length !== 1) {
      throw new UsageError(say(lang, 'Укажите один файл доказательства.', 'Give one proof file.'));
    }
    if (values.key !== undefined && !isHex(values.key, 32)) {
      throw new UsageError(say(lang, '--key: нужны 64 шестнадцатеричные цифры.', '--key: 64 hex digits expected.'));
    }
    let server: string | undefined;
    if (values.server !== undefined) {
      try {
        const url = new URL(values.server);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(url.protocol);
        server = url.href.replace(/\/+$/, '');
      } catch {
        throw new UsageError(
          say(
            lang,
            `--server ${values.server}: нужен адрес http(s)://…`,
            `--server ${values.server}: an http(s):// address expected.`,
          ),
        );
      }
    }
    const text = await readText(positionals[0]!, lang);
    let savedHead: Head | undefined;
    if (values.head !== undefined) {
      const json = await readJson(values.head, lang);
      try {
        savedHead = parseHead(json);
      } catch (error) {
        throw new UsageError(`${values.head}: ${formatReason(error, lang)}.`);
      }
    }
    let consistency: ConsistencyProof[] | undefined;
    if (values.consistency !== undefined) {
      if (!savedHead)
        throw new UsageError(say(lang, '--consistency нужен вместе с --head.', '--consistency needs --head.'));
      const json = await readJson(values.consistency, lang);
      try {
        consistency = (Array.isArray(json) ? json : [json]).map(readConsistency);
      } catch (error) {
        throw new UsageError(`${values.consistency}: ${formatReason(error, lang)}.`);
      }
    } else if (savedHead) {
      const saved = savedHead;
      const sizes = [...new Set(proofHeads(text).map((h) => h.tree_size))].filter((n) => n !== saved.tree_size);
      if (sizes.length && !server) {
        throw new UsageError(
          say(
            lang,
            '--head нужен вместе с --consistency (файл ответа /api/price-log/consistency) или --server (адрес сайта).',
            '--head needs --consistency (a /api/price-log/consistency answer) or --server (the site to fetch it from).',
          ),
        );
      }
      consistency = [];
      for (const size of sizes) {
        const [first, second] = size < saved.tree_size ? [size, saved.tree_size] : [saved.tree_size, size];
        consistency.push(await fetchConsistency(server!, first, second, lang));
      }
    }
    const verdicts = await verifyFile(text, {
      lang,
      ...(values.key !== undefined ? { publicKey: values.key } : {}),
      ...(savedHead ? { savedHead } : {}),
      ...(consistency ? { consistency } : {}),
    });
    if (verdicts.length === 0) {
      console.log(
        say(
          lang,
          'В файле нет доказательств (за период не было рассчитанных сделок).',
          'The file holds no proofs (no settled trades in its period).',
        ),
      );
    }
    verdicts.forEach((verdict, i) => {
      if (verdicts.length > 1) {
        const id = verdict.trade_id === null ? '?' : `${say(lang, '№', '#')}${verdict.trade_id}`;
        console.log(`${i ? '\n' : ''}── ${say(lang, 'Сделка', 'Trade')} ${id} (${i + 1}/${verdicts.length}) ──`);
      }
      print(verdict);
    });
    const bad = verdicts.filter((v) => !v.ok).length;
    if (verdicts.length > 1) {
      console.log(
        say(
          lang,
          `\nПроверено доказательств: ${verdicts.length}; сходятся: ${verdicts.length - bad}, не сходятся: ${bad}.`,
          `\nChecked ${verdicts.length} proofs: ${verdicts.length - bad} hold, ${bad} do not.`,
        ),
      );
    }
    return bad ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE[lang]}`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Not expected (verifyFile never throws); still a short line, not a stack trace, and "could not check".
    console.error(`brokerage-verify: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  },
);
