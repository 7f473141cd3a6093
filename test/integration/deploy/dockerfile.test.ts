import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REPO_ROOT } from '../../support/deploy/deploy-manifests.js';
import { execForm, instructionsOf, parseDockerfile, type Stage } from '../../support/deploy/dockerfile.js';

/**
 * deploy/Dockerfile. No container engine runs here, so: lint its structure, then run its build stage's
 * commands for real and start the result laid out as the runtime stage lays it out.
 */

const DOCKERFILE = readFileSync(join(REPO_ROOT, 'deploy/Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(join(REPO_ROOT, 'deploy/Dockerfile.dockerignore'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const stages = parseDockerfile(DOCKERFILE);

function stage(name: string): Stage {
  const found = stages.find((s) => s.name === name);
  if (!found)
    throw new Error(`no stage ${name} in deploy/Dockerfile: ${stages.map((s) => s.name).join(', ')}`);
  return found;
}

function healthcheckCommand(): string[] {
  const [healthcheck] = instructionsOf(stage('runtime'), 'HEALTHCHECK');
  const command = execForm(healthcheck?.replace(/^.*?\bCMD\s+/, '') ?? '');
  if (!command) throw new Error(`HEALTHCHECK needs the exec form CMD ["node", ...]: ${healthcheck}`);
  return command;
}

describe('deploy/Dockerfile', () => {
  it('builds in two stages from one pinned Node 20 bookworm-slim release', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const s of stages)
      expect(s.image).toMatch(/^node:20\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
    expect(new Set(stages.map((s) => s.image)).size).toBe(1);
  });

  it('builds with npm ci and `npm run build` (tsc, then the CLI bundle) in the build stage', () => {
    const run = instructionsOf(stage('build'), 'RUN');
    expect(run).toEqual(['npm ci --ignore-scripts --no-audit --no-fund', 'npm run build']);
    expect(PACKAGE.scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/build-cli.mjs');
  });

  it('the runtime stage installs production dependencies only and copies dist/ from the build', () => {
    const runtime = stage('runtime');
    const run = instructionsOf(runtime, 'RUN').join(' && ');
    expect(run).toContain('npm ci --omit=dev');
    expect(run).not.toMatch(/npm (install|i|add)\b|--include=dev|--production=false/);
    const npmCi = run.match(/npm ci[^&;]*/g) ?? [];
    for (const command of npmCi) expect(command).toContain('--omit=dev');
    const copies = instructionsOf(runtime, 'COPY');
    expect(copies.filter((c) => c.startsWith('--from='))).toEqual(['--from=build /app/dist ./dist']);
    expect(copies.some((c) => /\b(src|commands|node_modules)\b/.test(c))).toBe(false);
  });

  /**
   * Issue 38 L3: `npm ci` ran every dependency's install scripts. Every npm ci runs with
   * --ignore-scripts; each package of the lock that has an install script is either rebuilt by name
   * in the stage that installs it, or named in the Dockerfile's comment with why the image works
   * without its script (checked for real when this was written: esbuild's build API and
   * msgpackr-extract's native module, installed with --ignore-scripts, both worked).
   */
  it('installs without dependency scripts; each package that has one is rebuilt or said not to need it', () => {
    const runs = stages.flatMap((s) => instructionsOf(s, 'RUN')).join(' && ');
    for (const command of runs.match(/npm ci[^&;]*/g) ?? []) expect(command).toContain('--ignore-scripts');
    const rebuilt = [...runs.matchAll(/npm rebuild ([^&;]+)/g)].flatMap((m) =>
      (m[1] ?? '').trim().split(/\s+/),
    );
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    expect(scripted.length).toBeGreaterThan(0);
    const explained = (name: string) =>
      new RegExp(`^#\\s+(?:\\S+,\\s+)*${name.replace(/[/.@]/g, '\\$&')}\\b`, 'm');
    for (const name of scripted)
      expect({ name, accounted: rebuilt.includes(name) || explained(name).test(DOCKERFILE) }).toEqual({
        name,
        accounted: true,
      });
  });

  it('runs as uid 10001, compiled, with a healthcheck, `node bin/etcd-doctor.js` and `serve` by default', () => {
    const runtime = stage('runtime');
    const users = instructionsOf(runtime, 'USER');
    expect(users).toEqual(['10001:10001']);
    expect(runtime.instructions.at(-1)?.keyword).toBe('CMD');
    expect(instructionsOf(runtime, 'ENV').join(' ')).toMatch(/\bETCD_DOCTOR_COMPILED=1\b/);
    expect(instructionsOf(runtime, 'ENTRYPOINT').map(execForm)).toEqual([['node', 'bin/etcd-doctor.js']]);
    expect(instructionsOf(runtime, 'CMD').map(execForm)).toEqual([['serve']]);
    expect(healthcheckCommand()[0]).toBe('node');
  });

  it('sends the build everything it copies, and nothing else (Dockerfile.dockerignore)', () => {
    const allowed = DOCKERIGNORE.split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1));
    const sources = stages
      .flatMap((s) => instructionsOf(s, 'COPY'))
      .filter((c) => !c.startsWith('--from='))
      .flatMap((c) => c.split(' ').slice(0, -1));
    expect([...new Set(sources)].sort()).toEqual([...allowed].sort());
    expect(DOCKERIGNORE.split('\n')).toContain('*');
    const build = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    for (const dir of build.include) expect(allowed).toContain(dir);
  });
});

/** Static imports and re-exports at the start of a statement, and dynamic `import('x')`. */
const IMPORT =
  /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/gm;

describe('the build stage, run for real', () => {
  let app: string;
  let tsc: ReturnType<typeof spawnSync>;
  let bundle: ReturnType<typeof spawnSync>;

  beforeAll(() => {
    // The runtime stage's layout: /app/{package.json, node_modules, bin, dist}, and no sources.
    app = mkdtempSync(join(tmpdir(), 'etcd-doctor-image-'));
    tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(app, 'dist')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    bundle = spawnSync('node', ['scripts/build-cli.mjs', '--outdir', join(app, 'dist/cli')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    cpSync(join(REPO_ROOT, 'package.json'), join(app, 'package.json'));
    cpSync(join(REPO_ROOT, 'bin'), join(app, 'bin'), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  }, 90_000);

  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  function etcdDoctor(args: string[]) {
    return spawnSync('node', ['bin/etcd-doctor.js', ...args], {
      cwd: app,
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH, ETCD_DOCTOR_COMPILED: '1' },
    });
  }

  it('tsc -p tsconfig.build.json compiles and scripts/build-cli.mjs bundles without errors', () => {
    expect({ status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` }).toEqual({ status: 0, output: '' });
    expect({ status: bundle.status, output: `${bundle.stdout}${bundle.stderr}` }).toEqual({
      status: 0,
      output: '',
    });
    expect(readdirSync(join(app, 'dist')).sort()).toEqual(['cli', 'src']);
  });

  it('the compiled CLI starts: --help exits 0 and lists the roles', () => {
    const help = etcdDoctor(['--help']);
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: etcd-doctor');
    for (const command of ['health', 'diagnose', 'bot', 'worker', 'serve'])
      expect(help.stdout).toContain(command);
    for (const entry of ['dist/cli/main.js', 'dist/src/main.js']) {
      const direct = spawnSync('node', [entry, '--help'], { cwd: app, encoding: 'utf8' });
      expect({ entry, status: direct.status }).toEqual({ entry, status: 0 });
    }
  });

  it('the compiled CLI loads config: a missing clusters file is a config error (exit 2)', () => {
    const run = etcdDoctor(['health', 'prod', '--config', join(app, 'missing.yaml')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('missing.yaml');
  });

  it('the compiled code imports production dependencies only (npm ci --omit=dev)', () => {
    const builtins = new Set(builtinModules);
    const files = (readdirSync(join(app, 'dist'), { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.js'),
    );
    // The one sources-only path: analyze-child-entry bundles the analysis child with esbuild (a dev
    // dependency) when no built analyze-child.js sits beside it, which the built code always has.
    for (const dir of ['src/offline', 'cli'])
      expect(existsSync(join(app, 'dist', dir, 'analyze-child.js'))).toBe(true);
    // It is in tsc's copy and in the CLI bundle's chunk that holds bundleSources.
    const sourcesOnly = (js: string, specifier: string) =>
      specifier === 'esbuild' && js.includes('bundleSources');
    const specifiers = files.flatMap((f) => {
      const js = readFileSync(join(app, 'dist', f), 'utf8');
      return [...js.matchAll(IMPORT)]
        .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
        .filter((s) => !sourcesOnly(js, s));
    });
    const packages = new Set(
      specifiers
        .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtins.has(s))
        .map((s) =>
          s
            .split('/')
            .slice(0, s.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    );
    expect(packages.size).toBeGreaterThan(3);
    expect([...packages].filter((p) => !(p in PACKAGE.dependencies))).toEqual([]);
  });
});

describe('the HEALTHCHECK command', () => {
  let server: Server;
  let status = 200;

  async function listen(target: Server): Promise<number> {
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const address = target.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  }

  beforeAll(() => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? status : 404).end();
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function healthcheck(port: number): Promise<number | null> {
    const [command = 'node', ...args] = healthcheckCommand();
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: 'ignore',
    });
    return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  it('is healthy when /healthz on $PORT answers 200, unhealthy on 503 or when nothing listens', async () => {
    const port = await listen(server);
    expect(await healthcheck(port)).toBe(0);
    status = 503;
    expect(await healthcheck(port)).toBe(1);
    const closed = createServer();
    const closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    expect(await healthcheck(closedPort)).toBe(1);
  });
});
