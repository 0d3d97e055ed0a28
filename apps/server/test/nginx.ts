import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, freePort, until } from './server-process.js';

/**
 * nginx (Debian's package) in front of server processes, started from the example the repository ships for operators
 * (deploy/nginx.conf) with only its addresses, ports and file paths changed, so the test exercises the very file an
 * operator copies.
 */
export interface Nginx {
  url: string;
  ws: string;
  stop(): Promise<void>;
}

export const NGINX_BIN = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));

/**
 * deploy/nginx.conf with the upstream addresses, the listen port and every file path replaced. Each upstream server
 * keeps the parameters the file gives its first one (max_fails, fail_timeout…), so the test runs the shipped settings.
 */
export function nginxConfig(upstreams: string[], port: number, dir: string): string {
  const source = fs.readFileSync(path.join(REPO_ROOT, 'deploy/nginx.conf'), 'utf8');
  const params = /^ {4}server 127\.0\.0\.1:\d+([^;]*);$/m.exec(source)?.[1] ?? '';
  const servers = upstreams.map((u) => `    server ${u}${params};`).join('\n');
  let conf = source
    .replace(/^ {4}server 127\.0\.0\.1:\d+ .*\n(?: {4}server 127\.0\.0\.1:\d+ .*\n)*/m, `${servers}\n`)
    .replace(/listen 8080;/, `listen 127.0.0.1:${port};`)
    .replace(/^pid .*;$/m, `pid ${dir}/nginx.pid;`)
    .replace(/^error_log .*;$/m, `error_log ${dir}/error.log warn;`)
    .replace(/^worker_processes auto;$/m, 'worker_processes 1;');
  // Temporary files in the test's folder (the workers run as nobody: the folder is open to them).
  conf = conf.replace(
    /^http \{$/m,
    ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((t) => `  ${t}_temp_path ${dir}/${t};`)
      .reduce((acc, line) => `${acc}\n${line}`, 'http {'),
  );
  if (conf === source || !conf.includes(upstreams[0]!))
    throw new Error('deploy/nginx.conf is not in the expected form');
  return conf;
}

export async function startNginx(upstreams: string[]): Promise<Nginx> {
  if (!NGINX_BIN) throw new Error('nginx is not installed (apt-get install -y nginx; .ci/run installs it)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-nginx-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, nginxConfig(upstreams, port, dir));
  const check = spawnSync(NGINX_BIN, ['-t', '-q', '-p', dir, '-c', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t failed: ${check.stderr}`);
  const child: ChildProcess = spawn(NGINX_BIN, ['-p', dir, '-c', file, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await until(
    'nginx to answer',
    async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${err}`);
      return fetch(`${url}/api/health/live`)
        .then((r) => r.status > 0)
        .catch(() => false);
    },
    15_000,
  );
  return {
    url,
    ws: `ws://127.0.0.1:${port}/api/ws`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
