import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Serves the built web app. Hashed assets are cached for a year; index.html never, so a deploy is picked up at once.
 * Returns false when there is no build (the API still works; `npm start` always builds first).
 */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<boolean> {
  const index = path.join(distDir, 'index.html');
  if (!fs.existsSync(index)) return false;
  await app.register(fastifyStatic, {
    root: distDir,
    // One wildcard route that looks on disk per request, so a rebuild's new hashed files are served without a
    // restart; a file that is not there falls through to the not-found handler.
    wildcard: true,
    index: ['index.html'],
    // Off, or send's own 'public, max-age=0' would overwrite what setHeaders chose.
    cacheControl: false,
    setHeaders(res, filePath) {
      if (filePath.includes(`${path.sep}assets${path.sep}`))
        res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      else res.setHeader('cache-control', 'no-cache');
    },
  });
  return true;
}
