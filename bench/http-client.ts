/**
 * The place-trade calls of bench:trading sent from a process of their own (as real clients are: never inside the
 * server's process), on keep-alive connections, each from its own X-Forwarded-For address. Driven by its parent over
 * IPC: `{cmd: 'run', port, tokens, n, concurrency}` answers `{seconds, latencies}` (the run's time and each call's);
 * `{cmd: 'close'}` ends it.
 */
import http from 'node:http';
import { placeTradeBody } from './place-trade-calls.js';

type Command = { cmd: 'run'; port: number; tokens: string[]; n: number; concurrency: number } | { cmd: 'close' };

let ipCounter = 1_000_000;

function place(agent: http.Agent, port: number, token: string, i: number): Promise<void> {
  ipCounter += 1;
  const payload = JSON.stringify(placeTradeBody(i));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/trading/place-trade',
        agent,
        headers: {
          'x-forwarded-for': `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 201
            ? resolve()
            : reject(new Error(`place-trade: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8')}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function run(command: Extract<Command, { cmd: 'run' }>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: command.concurrency });
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: command.concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= command.n) return;
        const t = performance.now();
        await place(agent, command.port, command.tokens[i % command.tokens.length]!, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { seconds, latencies };
}

process.on('message', (command: Command) => {
  if (command.cmd === 'close') process.exit(0);
  run(command).then(
    (result) => process.send!({ ok: true, ...result }),
    (err: unknown) => process.send!({ ok: false, error: String(err) }),
  );
});
