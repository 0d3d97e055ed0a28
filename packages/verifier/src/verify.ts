import { isHex } from './bytes.js';
import { compareDecimal } from './decimal.js';
import {
  FormatError,
  instantMs,
  readProof,
  UnknownFormatError,
  type ConsistencyProof,
  type Expected,
  type ProofDocument,
  type Tick,
} from './format.js';
import { keyIdOf, leafHash, verifyConsistency, verifyHeadSignature, verifyInclusion, type Head } from './merkle.js';
import { amountsFor, decide, RULE_GAP_SECONDS, type Status } from './rule.js';

/**
 * The verifier's checks, decisions.md D27 1–8, each one a Step with a sentence a client can read (ru or en) that names
 * the values it compared. The CLI and the web's /verify page show exactly these steps.
 */

export type Lang = 'ru' | 'en';
export type StepId =
  'format' | 'signature' | 'inclusion' | 'ticks' | 'strike' | 'close' | 'result' | 'head_time' | 'consistency';
/** ok null: not applicable / not checked (e.g. consistency without a saved head; the decision of a void trade). */
export interface Step {
  id: StepId;
  ok: boolean | null;
  text: string;
}
export interface Verdict {
  ok: boolean;
  trade_id: number | null;
  steps: Step[];
  summary: string;
}
export interface VerifyOptions {
  /** Default 'ru'. */
  lang?: Lang;
  /** hex32: the key the user trusts, instead of the document's. */
  publicKey?: string;
  /** A head the user kept earlier. */
  savedHead?: Head;
  /**
   * The /api/price-log/consistency answer between the saved head and the proof's head; for a bundle whose proofs use
   * several heads, one answer per head (each proof takes the one that joins its head with the saved one).
   */
  consistency?: ConsistencyProof | ConsistencyProof[];
}

type Say = (ru: string, en: string) => string;

const STEP_NAMES: Record<StepId, [string, string]> = {
  format: ['формат файла', 'file format'],
  signature: ['подпись', 'signature'],
  inclusion: ['запись в журнале', 'inclusion in the log'],
  ticks: ['тики сделки', "the trade's ticks"],
  strike: ['цена открытия', 'strike'],
  close: ['цена закрытия', 'close'],
  result: ['результат', 'result'],
  head_time: ['время вершины', 'head time'],
  consistency: ['согласованность журнала', 'log consistency'],
};

const STATUS_NAMES: Record<Status, [string, string]> = {
  won: ['выигрыш', 'won'],
  lost: ['проигрыш', 'lost'],
  tie: ['возврат (цена не изменилась)', 'tie'],
  no_price: ['нет цены', 'no price'],
  void: ['аннулирована', 'void'],
};

type TickName = 'strike' | 'strike_next' | 'close' | 'close_next';
const TICK_NAMES: Record<TickName, [string, string]> = {
  strike: ['тик цены открытия', 'the strike tick'],
  strike_next: ['следующий тик после открытия', 'the tick after the strike'],
  close: ['тик цены закрытия', 'the close tick'],
  close_next: ['следующий тик после закрытия', 'the tick after the close'],
};

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** '12:01:00.4 UTC' (milliseconds only when there are some, without trailing zeros); the date when asked. */
function clock(ms: number, withDate = false): string {
  const d = new Date(ms);
  const fraction = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '')}` : '';
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction} UTC`;
  return withDate ? `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}` : time;
}

/** Cents as a plain amount: 1050 → '10.50', −1000 → '−10.00'. */
function money(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '−' : ''}${Math.floor(abs / 100)}.${pad(abs % 100)}`;
}

function short(hex: string): string {
  return `${hex.slice(0, 12)}…`;
}

function shown(value: unknown): string {
  if (value === undefined) return '—';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function expectedText(say: Say, e: Expected, nullable: boolean): string {
  const base =
    typeof e === 'object'
      ? say(`значение ${shown(e.literal)}`, `the value ${shown(e.literal)}`)
      : {
          object: say('объект { … }', 'an object { … }'),
          whole: say('целое число ≥ 0', 'a whole number ≥ 0'),
          positive: say('целое число ≥ 1', 'a whole number ≥ 1'),
          percent: say('целое число процентов', 'a whole percentage'),
          signed: say('целое число', 'a whole number'),
          string: say('строка', 'a string'),
          symbol: say('код инструмента, например "EURUSD"', 'an asset code such as "EURUSD"'),
          decimal: say(
            'десятичное число строкой, например "1.08520"',
            'a decimal number as a string, such as "1.08520"',
          ),
          instant: say(
            'дата и время ISO 8601 с зоной, например "2026-01-01T12:00:00.000Z"',
            'an ISO 8601 date and time with a zone, such as "2026-01-01T12:00:00.000Z"',
          ),
          hash: say('хеш: 64 шестнадцатеричные цифры', 'a hash: 64 hex digits'),
          signature: say('подпись: 128 шестнадцатеричных цифр', 'a signature: 128 hex digits'),
          key: say('открытый ключ: 64 шестнадцатеричные цифры', 'a public key: 64 hex digits'),
          key_id: say('отпечаток ключа: 16 шестнадцатеричных цифр', 'a key fingerprint: 16 hex digits'),
          path: say('список хешей по 64 шестнадцатеричные цифры', 'a list of hashes of 64 hex digits each'),
          proofs: say('список доказательств сделок', 'a list of trade proofs'),
          direction: say('"call" или "put"', '"call" or "put"'),
          status: say(
            'один из: "won", "lost", "tie", "no_price", "void"',
            'one of "won", "lost", "tie", "no_price", "void"',
          ),
        }[e];
  return nullable ? say(`${base} или null`, `${base} or null`) : base;
}

/** The reason a document cannot be read, as a sentence. */
export function formatReason(error: unknown, lang: Lang): string {
  const say: Say = (ru, en) => (lang === 'ru' ? ru : en);
  if (error instanceof FormatError) {
    if (error.field.startsWith('(')) {
      // The whole file: a JSON value that is not an object at all.
      const [ru, en] =
        error.field === '(head)'
          ? [
              'вершина журнала { tree_size, time_ms, root, signature }',
              'a log head { tree_size, time_ms, root, signature }',
            ]
          : error.field === '(consistency)'
            ? ['ответ о согласованности { first, second, proof }', 'a consistency answer { first, second, proof }']
            : ['документ-доказательство { … }', 'a proof document { … }'];
      return say(`в файле ${shown(error.got)}, а не ${ru}`, `the file holds ${shown(error.got)}, not ${en}`);
    }
    const expected = expectedText(say, error.expected, error.nullable);
    if (error.got === undefined) {
      return say(
        `нет поля ${error.field} (ожидается ${expected})`,
        `the field ${error.field} is missing (${expected} expected)`,
      );
    }
    return say(
      `поле ${error.field}: ожидается ${expected}, а в файле ${shown(error.got)}`,
      `the field ${error.field} should be ${expected}, but it is ${shown(error.got)}`,
    );
  }
  if (error instanceof UnknownFormatError) {
    if (error.kind === 'format' && error.got === undefined) {
      return say(
        'это не доказательство сделки: в файле нет поля "format"',
        'this is not a trade proof: the file has no "format" field',
      );
    }
    if (error.kind === 'format') {
      return say(
        `это не доказательство сделки: поле "format" равно ${shown(error.got)}, а ожидается "brokerage-trade-proof" или "brokerage-trade-proofs"`,
        `this is not a trade proof: its "format" is ${shown(error.got)}, not "brokerage-trade-proof" or "brokerage-trade-proofs"`,
      );
    }
    if (error.kind === 'version') {
      return say(
        `версия формата ${shown(error.got)} незнакома этой программе (она читает версию 1) — обновите программу проверки`,
        `format version ${shown(error.got)} is unknown to this verifier (it reads version 1): update the verifier`,
      );
    }
    return say(
      `правило расчёта версии ${shown(error.got)} незнакомо этой программе (она знает версию 1) — обновите программу проверки`,
      `settlement rule version ${shown(error.got)} is unknown to this verifier (it knows version 1): update the verifier`,
    );
  }
  if (error instanceof SyntaxError) {
    return say(`файл не является JSON (${error.message})`, `the file is not JSON (${error.message})`);
  }
  return say(`файл не удалось прочитать (${String(error)})`, `the file could not be read (${String(error)})`);
}

function fail(id: StepId, text: string): Step {
  return { id, ok: false, text };
}

function formatVerdict(error: unknown, lang: Lang, tradeId: number | null): Verdict {
  const say: Say = (ru, en) => (lang === 'ru' ? ru : en);
  const reason = formatReason(error, lang);
  return {
    ok: false,
    trade_id: tradeId,
    steps: [fail('format', say(`Файл нельзя проверить: ${reason}.`, `The file cannot be checked: ${reason}.`))],
    summary: say(
      'Проверка не выполнена: файл не является доказательством сделки в формате версии 1.',
      'Not checked: the file is not a trade proof of format version 1.',
    ),
  };
}

function tradeIdOf(doc: unknown): number | null {
  if (typeof doc !== 'object' || doc === null) return null;
  const trade = (doc as { trade?: unknown }).trade;
  if (typeof trade !== 'object' || trade === null) return null;
  const id = (trade as { id?: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

/** Checks one proof document (D27 checks 1–8). Never throws: a malformed document is a failed 'format' step. */
export async function verifyProof(doc: unknown, options: VerifyOptions = {}): Promise<Verdict> {
  const lang: Lang = options.lang === 'en' ? 'en' : 'ru';
  let proof: ProofDocument;
  try {
    proof = readProof(typeof doc === 'string' ? JSON.parse(doc) : doc);
  } catch (error) {
    return formatVerdict(error, lang, tradeIdOf(doc));
  }
  try {
    return await check(proof, options, lang);
  } catch (error) {
    // Every value was typed by readProof; this is a guard so that the page and the CLI always show a verdict.
    return formatVerdict(error, lang, proof.trade.id);
  }
}

async function check(p: ProofDocument, options: VerifyOptions, lang: Lang): Promise<Verdict> {
  const say: Say = (ru, en) => (lang === 'ru' ? ru : en);
  const { trade, ticks, head } = p;
  const expiresMs = instantMs(trade.expires_at);
  const expiryDay = new Date(expiresMs).toISOString().slice(0, 10);
  const at = (ms: number): string => clock(ms, new Date(ms).toISOString().slice(0, 10) !== expiryDay);
  const dir = trade.direction === 'call' ? say('вверх (call)', 'up (call)') : say('вниз (put)', 'down (put)');
  const statusName = (s: Status): string => say(`«${STATUS_NAMES[s][0]}»`, `“${STATUS_NAMES[s][1]}”`);
  const tickText = (name: TickName, t: Tick): string =>
    say(
      `${TICK_NAMES[name][0]} (${t.symbol} №${t.seq}, ${at(t.time_ms)}, ${t.price}, лист ${t.index})`,
      `${TICK_NAMES[name][1]} (${t.symbol} #${t.seq}, ${at(t.time_ms)}, ${t.price}, leaf ${t.index})`,
    );
  const isVoid = trade.status === 'void';
  const steps: Step[] = [];

  // format
  steps.push({
    id: 'format',
    ok: true,
    text: say(
      `Доказательство по сделке №${trade.id} (формат версии 1): ${trade.asset}, ${dir}, ставка ${money(trade.amount_cents)}, выплата ${trade.payout_percentage}%, экспирация ${clock(expiresMs, true)}.`,
      `Proof of trade #${trade.id} (format version 1): ${trade.asset}, ${dir}, stake ${money(trade.amount_cents)}, payout ${trade.payout_percentage}%, expiry ${clock(expiresMs, true)}.`,
    ),
  });

  // 1. signature
  {
    const trusted = options.publicKey !== undefined;
    const key = (options.publicKey ?? p.public_key).toLowerCase();
    const headText = say(
      `Вершина журнала цен (${head.tree_size} тиков, ${clock(head.time_ms, true)})`,
      `The price log head (${head.tree_size} ticks, ${clock(head.time_ms, true)})`,
    );
    if (!isHex(key, 32)) {
      steps.push(
        fail(
          'signature',
          say(
            `Указанный ключ ${shown(key)} — не 64 шестнадцатеричные цифры.`,
            `The key you gave, ${shown(key)}, is not 64 hex digits.`,
          ),
        ),
      );
    } else {
      const keyId = await keyIdOf(key);
      const problems: string[] = [];
      if (trusted && p.public_key !== key) {
        problems.push(
          say(
            `в файле указан ключ ${short(p.public_key)}, а не ключ ${short(key)}, которому вы доверяете`,
            `the file names key ${short(p.public_key)}, not the key you trust, ${short(key)}`,
          ),
        );
      }
      if (p.key_id !== keyId) {
        problems.push(
          say(
            `key_id ${p.key_id} не отпечаток ключа ${short(key)} (его отпечаток ${keyId})`,
            `key_id ${p.key_id} is not the fingerprint of key ${short(key)} (that is ${keyId})`,
          ),
        );
      }
      if (head.key_id !== undefined && head.key_id !== keyId) {
        problems.push(
          say(
            `вершина подписана ключом ${head.key_id}, а не ${keyId}`,
            `the head names key ${head.key_id}, not ${keyId}`,
          ),
        );
      }
      const valid = await verifyHeadSignature(head, key);
      if (!valid) {
        problems.push(
          say(
            `подпись вершины не проверяется ключом ${short(key)}: вершину подписал другой ключ или её изменили`,
            `the head's signature does not verify under key ${short(key)}: another key signed it, or the head was changed`,
          ),
        );
      }
      steps.push(
        problems.length
          ? fail('signature', say(`${headText}: ${problems.join('; ')}.`, `${headText}: ${problems.join('; ')}.`))
          : {
              id: 'signature',
              ok: true,
              text: trusted
                ? say(
                    `${headText} подписана ключом, которому вы доверяете: ${short(key)} (key_id ${keyId}); подпись Ed25519 верна.`,
                    `${headText} is signed by the key you trust, ${short(key)} (key_id ${keyId}); the Ed25519 signature is valid.`,
                  )
                : say(
                    `${headText} подписана ключом из файла ${short(key)} (key_id ${keyId}); подпись Ed25519 верна. Сверьте этот ключ с опубликованным на странице прозрачности сайта (или передайте его через --key).`,
                    `${headText} is signed by the key in the file, ${short(key)} (key_id ${keyId}); the Ed25519 signature is valid. Compare this key with the one published on the site's transparency page (or pass it with --key).`,
                  ),
            },
      );
    }
  }

  // 2. inclusion
  {
    const present = (['strike', 'strike_next', 'close', 'close_next'] as const).flatMap((name) => {
      const t = ticks[name];
      return t ? [{ name, t }] : [];
    });
    const bad: string[] = [];
    for (const { name, t } of present) {
      if (t.index >= head.tree_size) {
        bad.push(
          say(
            `${tickText(name, t)}: лист ${t.index} за пределами вершины из ${head.tree_size} тиков`,
            `${tickText(name, t)}: leaf ${t.index} is beyond the head's ${head.tree_size} ticks`,
          ),
        );
      } else if (!(await verifyInclusion(await leafHash(t), t.index, head.tree_size, t.path, head.root))) {
        bad.push(tickText(name, t));
      }
    }
    steps.push(
      bad.length
        ? fail(
            'inclusion',
            say(
              `Нет в подписанном журнале: ${bad.join('; ')}. Хеш тика с его путём не даёт корень вершины ${short(head.root)} — цена, время тика или путь отличаются от записанных в журнал.`,
              `Not in the signed log: ${bad.join('; ')}. The tick's hash with its audit path does not give the head's root ${short(head.root)}: the tick's price or time, or its path, differ from what the log committed.`,
            ),
          )
        : {
            id: 'inclusion',
            ok: true,
            text: say(
              `Все тики доказательства (${present.length}) записаны в журнал: хеш каждого с его путём даёт корень вершины ${short(head.root)} (листы ${present.map((x) => x.t.index).join(', ')} из ${head.tree_size}).`,
              `All ${present.length} ticks of the proof are in the log: each one's hash with its audit path gives the head's root ${short(head.root)} (leaves ${present.map((x) => x.t.index).join(', ')} of ${head.tree_size}).`,
            ),
          },
    );
  }

  // 3. ticks: the trade's symbol, consecutive neighbours
  {
    const problems: string[] = [];
    for (const name of ['strike', 'strike_next', 'close', 'close_next'] as const) {
      const t = ticks[name];
      if (t && t.symbol !== trade.asset) {
        problems.push(say(`${tickText(name, t)} — не ${trade.asset}`, `${tickText(name, t)} is not ${trade.asset}`));
      }
    }
    const pairs: string[] = [];
    const neighbour = (a: Tick | null, b: Tick | null, bn: TickName): void => {
      if (!b) return;
      const expectedSeq = a ? a.seq + 1 : 1;
      if (b.seq !== expectedSeq) {
        problems.push(
          a
            ? say(
                `${TICK_NAMES[bn][0]} имеет номер ${b.seq}, а следующий за №${a.seq} — №${expectedSeq}`,
                `${TICK_NAMES[bn][1]} has number ${b.seq}, but the one after #${a.seq} is #${expectedSeq}`,
              )
            : say(
                `тика закрытия нет, значит ${TICK_NAMES[bn][0]} должен быть первым тиком инструмента (№1), а он №${b.seq}`,
                `there is no close tick, so ${TICK_NAMES[bn][1]} must be the symbol's first tick (#1), but it is #${b.seq}`,
              ),
        );
      } else if (a && b.index <= a.index) {
        problems.push(
          say(
            `${TICK_NAMES[bn][0]} (лист ${b.index}) записан не после тика №${a.seq} (лист ${a.index})`,
            `${TICK_NAMES[bn][1]} (leaf ${b.index}) was not stored after tick #${a.seq} (leaf ${a.index})`,
          ),
        );
      } else {
        pairs.push(a ? say(`№${a.seq} → №${b.seq}`, `#${a.seq} → #${b.seq}`) : say('№1 — первый', '#1 is the first'));
      }
    };
    neighbour(ticks.strike, ticks.strike_next, 'strike_next');
    neighbour(ticks.close, ticks.close_next, 'close_next');
    const count = [ticks.strike, ticks.strike_next, ticks.close, ticks.close_next].filter(Boolean).length;
    steps.push(
      problems.length
        ? fail(
            'ticks',
            say(
              `Тики не сходятся со сделкой: ${problems.join('; ')}.`,
              `The ticks do not match the trade: ${problems.join('; ')}.`,
            ),
          )
        : {
            id: 'ticks',
            ok: true,
            text: say(
              `Тики относятся к сделке: все ${count} — ${trade.asset}, и каждый сосед — следующий тик инструмента по порядку${pairs.length ? ` (${pairs.join(', ')})` : ''}.`,
              `The ticks are the trade's: all ${count} are ${trade.asset}, and each neighbour is the symbol's next tick${pairs.length ? ` (${pairs.join(', ')})` : ''}.`,
            ),
          },
    );
  }

  // 4. strike: the last tick at or before the opening, among the ticks stored before the trade opened
  {
    const s = ticks.strike;
    const next = ticks.strike_next;
    const openedMs = instantMs(trade.opened_at);
    const problems: string[] = [];
    if (compareDecimal(s.price, trade.strike_price) !== 0) {
      problems.push(
        say(
          `в сделке цена открытия ${trade.strike_price}, а в тике ${s.price}`,
          `the trade's strike price is ${trade.strike_price}, but the tick's price is ${s.price}`,
        ),
      );
    }
    if (s.time_ms !== instantMs(trade.strike_at)) {
      problems.push(
        say(
          `время тика ${at(s.time_ms)} не равно strike_at ${at(instantMs(trade.strike_at))}`,
          `the tick's time ${at(s.time_ms)} is not strike_at ${at(instantMs(trade.strike_at))}`,
        ),
      );
    }
    if (s.time_ms > openedMs) {
      problems.push(
        say(
          `тик ${at(s.time_ms)} позже открытия сделки ${at(openedMs)}`,
          `the tick at ${at(s.time_ms)} is later than the opening at ${at(openedMs)}`,
        ),
      );
    }
    if (s.index >= trade.opened_log_size) {
      problems.push(
        say(
          `тик (лист ${s.index}) записан после открытия: тогда в журнале было ${trade.opened_log_size} тиков`,
          `the tick (leaf ${s.index}) was stored after the opening, when the log had ${trade.opened_log_size} ticks`,
        ),
      );
    }
    let nextText = '';
    let unproven = false;
    if (!next) {
      unproven = true;
    } else if (next.time_ms > openedMs) {
      nextText = say(
        `следующая цена ${next.price} в ${at(next.time_ms)} — уже после открытия`,
        `the next price, ${next.price} at ${at(next.time_ms)}, came after the opening`,
      );
    } else if (next.index >= trade.opened_log_size) {
      nextText = say(
        `следующая цена ${next.price} записана после открытия сделки (лист ${next.index} ≥ ${trade.opened_log_size} тиков в журнале при открытии)`,
        `the next price, ${next.price}, was stored after the trade opened (leaf ${next.index} ≥ the ${trade.opened_log_size} ticks the log had at the opening)`,
      );
    } else {
      problems.push(
        say(
          `следующая цена ${next.price} в ${at(next.time_ms)} была и не позже открытия ${at(openedMs)}, и записана до него (лист ${next.index} < ${trade.opened_log_size}) — значит, цена открытия должна быть она`,
          `the next price, ${next.price} at ${at(next.time_ms)}, was neither after the opening at ${at(openedMs)} nor stored after it (leaf ${next.index} < ${trade.opened_log_size}): the strike should have been that price`,
        ),
      );
    }
    if (problems.length) {
      steps.push(
        fail(
          'strike',
          say(
            `Цена открытия не доказана: ${problems.join('; ')}.`,
            `The strike is not proven: ${problems.join('; ')}.`,
          ),
        ),
      );
    } else if (unproven && isVoid) {
      steps.push({
        id: 'strike',
        ok: null,
        text: say(
          `Цена открытия ${s.price} — тик ${at(s.time_ms)}, не позже открытия ${at(openedMs)}; следующего тика в доказательстве нет (сделку аннулировали раньше), поэтому то, что цена была последней, не проверяется.`,
          `The strike price ${s.price} is the tick of ${at(s.time_ms)}, at or before the opening at ${at(openedMs)}; the proof has no next tick (the trade was voided before one), so that it was the last price is not checked.`,
        ),
      });
    } else if (unproven) {
      steps.push(
        fail(
          'strike',
          say(
            `Цена открытия ${s.price} (${at(s.time_ms)}) не доказана как последняя до открытия ${at(openedMs)}: в доказательстве нет следующего тика.`,
            `The strike price ${s.price} (${at(s.time_ms)}) is not proven to be the last before the opening at ${at(openedMs)}: the proof has no next tick.`,
          ),
        ),
      );
    } else {
      steps.push({
        id: 'strike',
        ok: true,
        text: say(
          `Цена открытия ${s.price} — последняя цена не позже открытия ${at(openedMs)}: тик ${at(s.time_ms)}, а ${nextText}.`,
          `The strike price ${s.price} is the last price at or before the opening at ${at(openedMs)}: the tick of ${at(s.time_ms)}, and ${nextText}.`,
        ),
      });
    }
  }

  // 5. close: the last tick at or before the expiry
  {
    const c = ticks.close;
    const next = ticks.close_next;
    const expiry = clock(expiresMs, true);
    const problems: string[] = [];
    const closeAtMs = trade.close_at === null ? null : instantMs(trade.close_at);
    if (c && c.time_ms > expiresMs) {
      problems.push(
        say(`тик закрытия ${at(c.time_ms)} позже экспирации`, `the close tick at ${at(c.time_ms)} is after the expiry`),
      );
    }
    if (next && next.time_ms <= expiresMs) {
      problems.push(
        say(
          `следующий тик ${next.price} в ${at(next.time_ms)} не позже экспирации — значит, последняя цена до экспирации другая`,
          `the next tick, ${next.price} at ${at(next.time_ms)}, is not after the expiry: the last price before the expiry is another one`,
        ),
      );
    }
    // The strike tick is a price at or before the opening, so before the expiry: the close is that tick or a later one.
    // A proof showing no close at all, or a close older than its strike, contradicts its own strike tick.
    const s = ticks.strike;
    if (!c && next && !isVoid && s.time_ms <= expiresMs) {
      problems.push(
        say(
          `в доказательстве нет цены до экспирации, хотя тик цены открытия №${s.seq} (${at(s.time_ms)}) сам не позже неё`,
          `the proof shows no price at or before the expiry, yet the strike tick #${s.seq} (${at(s.time_ms)}) is one`,
        ),
      );
    } else if (c && c.seq < s.seq) {
      problems.push(
        say(
          `тик закрытия №${c.seq} идёт раньше тика открытия №${s.seq}`,
          `the close tick #${c.seq} comes before the strike tick #${s.seq}`,
        ),
      );
    }
    if (!next && !isVoid) {
      problems.push(
        say(
          'в доказательстве нет тика после экспирации, поэтому нельзя показать, что цена закрытия — последняя',
          'the proof has no tick after the expiry, so the close cannot be shown to be the last price',
        ),
      );
    }
    // What the trade says its close was: the close tick, except for no_price (both null, D27 check 5).
    if (trade.status === 'no_price' || (isVoid && trade.close_price === null)) {
      if (trade.status === 'no_price' && (trade.close_price !== null || trade.close_at !== null)) {
        problems.push(
          say(
            `сделка «нет цены», но в ней указана цена закрытия ${trade.close_price ?? '—'} (${trade.close_at ?? '—'})`,
            `the trade is “no price” but states a close price ${trade.close_price ?? '—'} (${trade.close_at ?? '—'})`,
          ),
        );
      }
    } else if (!c) {
      problems.push(
        say(
          `в сделке цена закрытия ${trade.close_price ?? '—'}, а тика закрытия в доказательстве нет`,
          `the trade states a close price of ${trade.close_price ?? '—'}, but the proof has no close tick`,
        ),
      );
    } else {
      if (trade.close_price === null || compareDecimal(trade.close_price, c.price) !== 0) {
        problems.push(
          say(
            `в сделке цена закрытия ${trade.close_price ?? '—'}, а в тике ${c.price}`,
            `the trade's close price is ${trade.close_price ?? '—'}, but the tick's is ${c.price}`,
          ),
        );
      }
      if (closeAtMs !== c.time_ms) {
        problems.push(
          say(
            `в сделке время закрытия ${closeAtMs === null ? '—' : at(closeAtMs)}, а у тика ${at(c.time_ms)}`,
            `the trade's close time is ${closeAtMs === null ? '—' : at(closeAtMs)}, but the tick's is ${at(c.time_ms)}`,
          ),
        );
      }
    }
    if (problems.length) {
      steps.push(
        fail(
          'close',
          say(`Цена закрытия не доказана: ${problems.join('; ')}.`, `The close is not proven: ${problems.join('; ')}.`),
        ),
      );
    } else if (isVoid && (!c || !next)) {
      // A trade may be voided before any tick after its expiry was committed: its close is not needed.
      steps.push({
        id: 'close',
        ok: null,
        text: say(
          `Сделка аннулирована, а в доказательстве нет пары тиков вокруг экспирации ${expiry}: цена закрытия для аннулированной сделки не нужна и не проверяется.`,
          `The trade was voided, and the proof has no pair of ticks around the expiry at ${expiry}: a voided trade needs no close price, none is checked.`,
        ),
      });
    } else if (!c) {
      steps.push({
        id: 'close',
        ok: true,
        text: say(
          `До экспирации ${expiry} цены ${trade.asset} не было: первый тик инструмента (№1) — ${next!.price} в ${at(next!.time_ms)}, уже после неё.`,
          `There was no ${trade.asset} price at or before the expiry at ${expiry}: the symbol's first tick (#1), ${next!.price}, is at ${at(next!.time_ms)}, after it.`,
        ),
      });
    } else {
      steps.push({
        id: 'close',
        ok: true,
        text: say(
          `Цена закрытия ${c.price} (${at(c.time_ms)}) — последняя цена до экспирации ${expiry}: следующая цена ${next!.price} в ${at(next!.time_ms)} позже.`,
          `The close price ${c.price} (${at(c.time_ms)}) is the last price at or before the expiry at ${expiry}: the next price, ${next!.price} at ${at(next!.time_ms)}, is later.`,
        ),
      });
    }
  }

  // 6. result and amounts by the published rule
  {
    const stated = trade.status;
    const amounts = amountsFor(stated, trade.amount_cents, trade.payout_percentage);
    const amountsRight = amounts.profit_cents === trade.profit_cents && amounts.credit_cents === trade.credit_cents;
    const amountsText = (profit: number, credit: number): string =>
      say(`прибыль ${money(profit)}, зачислено ${money(credit)}`, `profit ${money(profit)}, credited ${money(credit)}`);
    const wrongAmounts = say(
      `суммы не по правилу: должно быть ${amountsText(amounts.profit_cents, amounts.credit_cents)}, а в сделке ${amountsText(trade.profit_cents, trade.credit_cents)}`,
      `the amounts are not the rule's: they should be ${amountsText(amounts.profit_cents, amounts.credit_cents)}, but the trade has ${amountsText(trade.profit_cents, trade.credit_cents)}`,
    );
    if (p.rule.gap_seconds !== RULE_GAP_SECONDS) {
      steps.push(
        fail(
          'result',
          say(
            `В файле у правила версии 1 допуск ${p.rule.gap_seconds} с, а опубликованное правило версии 1 допускает ${RULE_GAP_SECONDS} с.`,
            `The file gives rule version 1 a gap of ${p.rule.gap_seconds} s, but the published rule version 1 allows ${RULE_GAP_SECONDS} s.`,
          ),
        ),
      );
    } else if (stated === 'void') {
      steps.push(
        amountsRight
          ? {
              id: 'result',
              ok: null,
              text: say(
                `Сделку аннулировал сотрудник — это решение, которое доказательство не может оценить; ставка ${money(trade.amount_cents)} возвращена (${amountsText(0, trade.amount_cents)}).`,
                `The trade was voided by staff: a decision the proof cannot judge; the stake of ${money(trade.amount_cents)} was returned (${amountsText(0, trade.amount_cents)}).`,
              ),
            }
          : fail(
              'result',
              say(
                `Сделка аннулирована, но ставка возвращена не полностью: ${wrongAmounts}.`,
                `The trade was voided, but the stake was not returned: ${wrongAmounts}.`,
              ),
            ),
      );
    } else {
      const close = ticks.close;
      const decision = decide({
        direction: trade.direction,
        strike_price: trade.strike_price,
        expires_ms: expiresMs,
        close: close ? { price: close.price, time_ms: close.time_ms } : null,
        gap_seconds: RULE_GAP_SECONDS,
      });
      const cmp = decision.reason === 'above' ? '>' : decision.reason === 'below' ? '<' : '=';
      const why =
        decision.reason === 'no_close'
          ? say(`до экспирации не было ни одной цены`, `there was no price at or before the expiry`)
          : decision.reason === 'gap'
            ? say(
                `последняя цена до экспирации (${at(close!.time_ms)}) старше экспирации на ${(expiresMs - close!.time_ms) / 1000} с — больше допустимых ${RULE_GAP_SECONDS} с`,
                `the last price before the expiry (${at(close!.time_ms)}) is ${(expiresMs - close!.time_ms) / 1000} s older than the expiry, more than the ${RULE_GAP_SECONDS} s allowed`,
              )
            : say(
                `${dir}, закрытие ${close!.price} ${cmp} открытие ${trade.strike_price}`,
                `${dir}, close ${close!.price} ${cmp} strike ${trade.strike_price}`,
              );
      if (decision.status !== stated) {
        steps.push(
          fail(
            'result',
            say(
              `В сделке результат ${statusName(stated)}, а по правилу — ${statusName(decision.status)}: ${why}.`,
              `The trade says ${statusName(stated)}, but the rule gives ${statusName(decision.status)}: ${why}.`,
            ),
          ),
        );
      } else if (!amountsRight) {
        steps.push(
          fail(
            'result',
            say(
              `Результат ${statusName(stated)} верен (${why}), но ${wrongAmounts}.`,
              `The result ${statusName(stated)} is right (${why}), but ${wrongAmounts}.`,
            ),
          ),
        );
      } else {
        const money_ =
          stated === 'won'
            ? say(
                `прибыль ⌊${money(trade.amount_cents)} × ${trade.payout_percentage}%⌋ = ${money(trade.profit_cents)}, зачислено ${money(trade.credit_cents)}`,
                `profit ⌊${money(trade.amount_cents)} × ${trade.payout_percentage}%⌋ = ${money(trade.profit_cents)}, credited ${money(trade.credit_cents)}`,
              )
            : stated === 'lost'
              ? say(
                  `ставка ${money(trade.amount_cents)} проиграна, зачислено 0.00`,
                  `the stake of ${money(trade.amount_cents)} is lost, credited 0.00`,
                )
              : say(
                  `ставка ${money(trade.amount_cents)} возвращена`,
                  `the stake of ${money(trade.amount_cents)} was returned`,
                );
        steps.push({
          id: 'result',
          ok: true,
          text: say(
            `Результат ${statusName(stated)} следует из опубликованного правила: ${why}; ${money_}.`,
            `The result ${statusName(stated)} follows from the published rule: ${why}; ${money_}.`,
          ),
        });
      }
    }
  }

  // 7. the head was published at or before the settlement
  {
    const settledMs = instantMs(trade.settled_at);
    steps.push(
      head.time_ms <= settledMs
        ? {
            id: 'head_time',
            ok: true,
            text: say(
              `Вершина журнала опубликована ${clock(head.time_ms, true)}, не позже расчёта сделки ${clock(settledMs, true)}: цены были зафиксированы до того, как по ним рассчитали сделку.`,
              `The log head was published at ${clock(head.time_ms, true)}, at or before the settlement at ${clock(settledMs, true)}: the prices were committed before the trade was settled on them.`,
            ),
          }
        : fail(
            'head_time',
            say(
              `Вершина журнала датирована ${clock(head.time_ms, true)} — позже расчёта сделки ${clock(settledMs, true)}: не доказано, что цены были зафиксированы до расчёта.`,
              `The log head is dated ${clock(head.time_ms, true)}, after the settlement at ${clock(settledMs, true)}: the prices are not proven to have been committed before the trade was settled.`,
            ),
          ),
    );
  }

  // 8. consistency with a head the user saved
  steps.push(await consistencyStep(p, options, say));

  const failed = steps.filter((s) => s.ok === false);
  const summary = failed.length
    ? say(
        `Сделка №${trade.id}: доказательство НЕ сходится — не пройдено проверок: ${failed.length} (${failed.map((s) => STEP_NAMES[s.id][0]).join(', ')}).`,
        `Trade #${trade.id}: the proof does NOT hold — ${failed.length} check${failed.length > 1 ? 's' : ''} failed (${failed.map((s) => STEP_NAMES[s.id][1]).join(', ')}).`,
      )
    : isVoid
      ? say(
          `Сделка №${trade.id}: все проверки пройдены. Цены — те, что записаны в подписанный журнал; аннулирование — решение сотрудника, которое доказательство не оценивает, а ставка ${money(trade.amount_cents)} возвращена.`,
          `Trade #${trade.id}: all checks passed. The prices are the ones committed in the signed log; the void is a staff decision the proof cannot judge, and the stake of ${money(trade.amount_cents)} was returned.`,
        )
      : say(
          `Сделка №${trade.id}: все проверки пройдены. Цены — те, что записаны в подписанный журнал, и результат ${statusName(trade.status)} (прибыль ${money(trade.profit_cents)}, зачислено ${money(trade.credit_cents)}) следует из опубликованного правила.`,
          `Trade #${trade.id}: all checks passed. The prices are the ones committed in the signed log, and the result ${statusName(trade.status)} (profit ${money(trade.profit_cents)}, credited ${money(trade.credit_cents)}) follows from the published rule.`,
        );
  return { ok: failed.length === 0, trade_id: trade.id, steps, summary };
}

async function consistencyStep(p: ProofDocument, options: VerifyOptions, say: Say): Promise<Step> {
  const saved = options.savedHead;
  const head = p.head;
  if (!saved) {
    return {
      id: 'consistency',
      ok: null,
      text: say(
        'Сохранённая ранее вершина не указана: то, что журнал только дописывался, не проверялось (укажите --head).',
        'No saved head given: that the log only grew since an earlier head was not checked (use --head).',
      ),
    };
  }
  const key = (options.publicKey ?? p.public_key).toLowerCase();
  const savedText = say(
    `сохранённая вами вершина (${saved.tree_size} тиков, корень ${short(saved.root)})`,
    `the head you saved (${saved.tree_size} ticks, root ${short(saved.root)})`,
  );
  if (!(await verifyHeadSignature(saved, key))) {
    return fail(
      'consistency',
      say(
        `Подпись: ${savedText} не подписана ключом ${short(key)} — сравнивать не с чем.`,
        `Signature: ${savedText} is not signed by key ${short(key)}, so there is nothing to compare with.`,
      ),
    );
  }
  if (saved.tree_size === head.tree_size) {
    return saved.root.toLowerCase() === head.root
      ? {
          id: 'consistency',
          ok: true,
          text: say(
            `Вершина доказательства совпадает с ${savedText}.`,
            `The proof's head is the same as ${savedText}.`,
          ),
        }
      : fail(
          'consistency',
          say(
            `Журнал переписан: у ${savedText} и у вершины доказательства одинаковый размер, но разные корни (${short(head.root)}).`,
            `The log was rewritten: ${savedText} and the proof's head have the same size but different roots (${short(head.root)}).`,
          ),
        );
  }
  const [older, newer] = saved.tree_size < head.tree_size ? [saved, head] : [head, saved];
  const answers = options.consistency === undefined ? [] : ([] as ConsistencyProof[]).concat(options.consistency);
  const answer = answers.find((a) => a.first.tree_size === older.tree_size && a.second.tree_size === newer.tree_size);
  if (!answer) {
    return fail(
      'consistency',
      say(
        `Нет доказательства согласованности между вершинами из ${older.tree_size} и ${newer.tree_size} тиков (укажите --consistency или --server).`,
        `No consistency proof between the heads of ${older.tree_size} and ${newer.tree_size} ticks was given (use --consistency or --server).`,
      ),
    );
  }
  const ok = await verifyConsistency(older.tree_size, newer.tree_size, older.root, newer.root, answer.proof);
  return ok
    ? {
        id: 'consistency',
        ok: true,
        text: say(
          `Журнал только дописывался: дерево из ${newer.tree_size} тиков (корень ${short(newer.root)}) продолжает дерево из ${older.tree_size} тиков (корень ${short(older.root)}) — доказательство согласованности верно; ${savedText} подписана тем же ключом.`,
          `The log only grew: the tree of ${newer.tree_size} ticks (root ${short(newer.root)}) extends the tree of ${older.tree_size} ticks (root ${short(older.root)}); the consistency proof verifies, and ${savedText} is signed by the same key.`,
        ),
      }
    : fail(
        'consistency',
        say(
          `Журнал переписан или доказательство неверно: дерево из ${newer.tree_size} тиков (корень ${short(newer.root)}) не продолжает дерево из ${older.tree_size} тиков (корень ${short(older.root)}).`,
          `The log was rewritten, or the proof is wrong: the tree of ${newer.tree_size} ticks (root ${short(newer.root)}) does not extend the tree of ${older.tree_size} ticks (root ${short(older.root)}).`,
        ),
      );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A proof document or a bundle (D27): one verdict per proof, in the bundle's order. `json` is the parsed file or its
 * text. Never throws: a file that is neither gives one verdict with a failed 'format' step.
 */
export async function verifyFile(json: unknown, options: VerifyOptions = {}): Promise<Verdict[]> {
  const lang: Lang = options.lang === 'en' ? 'en' : 'ru';
  let doc: unknown;
  try {
    doc = typeof json === 'string' ? JSON.parse(json) : json;
  } catch (error) {
    return [formatVerdict(error, lang, null)];
  }
  if (isObject(doc) && doc['format'] === 'brokerage-trade-proofs') {
    if (doc['version'] !== 1) return [formatVerdict(new UnknownFormatError('version', doc['version']), lang, null)];
    const proofs = doc['proofs'];
    if (!Array.isArray(proofs)) return [formatVerdict(new FormatError('proofs', 'proofs', false, proofs), lang, null)];
    const verdicts: Verdict[] = [];
    // One at a time: a bundle holds up to 1,000 proofs and the browser page stays responsive.
    for (const proof of proofs) verdicts.push(await verifyProof(proof, options));
    return verdicts;
  }
  return [await verifyProof(doc, options)];
}
