import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/**
 * The server bundled into one ES module (apps/server/dist/main.js, gitignored) for the tests that start many server
 * processes (the browser tests): plain `node` starts it without compiling TypeScript on every start. `npm run build`
 * makes it (`build:server`); startServerProcess({ bundle: true }) remakes it first when a source file is newer.
 *
 * Dependencies stay external (node_modules is there; native and wasm ones must); only the server's own code and the
 * workspace package @brokerage/shared (TypeScript sources) go in. Each source file keeps its own `import.meta.url`, so
 * the code that finds files next to itself (the web build, content/*.json, the XLS reader's modules) finds them in
 * the source tree as under tsx.
 */
const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_FILE = path.join(SERVER_DIR, 'dist', 'main.js');
/** The source files that went into the bundle (esbuild's metafile inputs, absolute paths). */
const INPUTS_FILE = path.join(SERVER_DIR, 'dist', 'main.inputs.json');

/** `import.meta.url` of every bundled file replaced with that file's own URL. */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?tsx?$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: args.path.endsWith('x') ? 'tsx' : 'ts',
      };
    });
  },
};

/** Bare imports external, except the workspace's own TypeScript packages (@brokerage/*), which are bundled. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@brokerage/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** Bundles apps/server/src/main.ts into BUNDLE_FILE; answers the time it took in ms. */
export async function buildServerBundle(): Promise<number> {
  const started = Date.now();
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(SERVER_DIR, 'src', 'main.ts')],
    outfile: BUNDLE_FILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [ownImportMetaUrl, externalPackages],
  });
  const cwd = process.cwd();
  const inputs = Object.keys(result.metafile.inputs).map((p) => path.resolve(cwd, p));
  // Each file written aside and renamed over the old one, so a process starting meanwhile reads a whole bundle.
  fs.mkdirSync(path.dirname(BUNDLE_FILE), { recursive: true });
  const put = (file: string, contents: string | Uint8Array) => {
    const aside = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(aside, contents);
    fs.renameSync(aside, file);
  };
  for (const out of result.outputFiles) if (out.path !== BUNDLE_FILE) put(out.path, out.contents);
  put(BUNDLE_FILE, result.outputFiles.find((out) => out.path === BUNDLE_FILE)!.contents);
  put(INPUTS_FILE, JSON.stringify({ started, inputs } satisfies BundleInputs, null, 1));
  return Date.now() - started;
}

interface BundleInputs {
  /** When the build began: a source file changed later may not be in it. */
  started: number;
  inputs: string[];
}

/** Whether BUNDLE_FILE exists and no source file that went into it changed (or went) since its build began. */
export function serverBundleFresh(): boolean {
  let meta: BundleInputs;
  try {
    fs.statSync(BUNDLE_FILE);
    meta = JSON.parse(fs.readFileSync(INPUTS_FILE, 'utf8')) as BundleInputs;
  } catch {
    return false;
  }
  return meta.inputs.every((file) => {
    try {
      return fs.statSync(file).mtimeMs < meta.started;
    } catch {
      return false;
    }
  });
}

/** The bundle, (re)made first if it is missing or older than a source file. */
export async function ensureServerBundle(): Promise<string> {
  if (!serverBundleFresh()) await buildServerBundle();
  return BUNDLE_FILE;
}

// `tsx apps/server/test/server-bundle.ts` (npm run build:server): make it now.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildServerBundle().then(
    (ms) => console.log(`server bundle: ${path.relative(process.cwd(), BUNDLE_FILE)} (${ms} ms)`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
