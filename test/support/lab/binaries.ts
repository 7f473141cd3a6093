import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runCommand } from './run-command.js';

/** Debian's etcd-server and etcd-client packages install here; release tarballs usually go to /usr/local/bin. */
const ETCD_PATHS = ['/usr/bin/etcd', '/usr/local/bin/etcd'];
const ETCDCTL_PATHS = ['/usr/bin/etcdctl', '/usr/local/bin/etcdctl'];
const STRACE_PATHS = ['/usr/bin/strace', '/bin/strace'];

/**
 * The etcd server binary, or undefined: the first on PATH, else Debian's or a release tarball's
 * place. PATH first, so a run selects etcd 3.5 by putting its unpacked `usr/bin` in front
 * (scripts/test.sh with ETCD_VERSION=3.5); an explicit path is `etcdBinary`.
 */
export function findEtcdBinary(): Promise<string | undefined> {
  return findBinary('etcd', ETCD_PATHS);
}

export function findEtcdctlBinary(): Promise<string | undefined> {
  return findBinary('etcdctl', ETCDCTL_PATHS);
}

export function findStraceBinary(): Promise<string | undefined> {
  return findBinary('strace', STRACE_PATHS);
}

/** etcdctl from the same install as the given etcd, so server and client versions match. */
export async function findSiblingEtcdctl(etcdBinary: string): Promise<string | undefined> {
  const sibling = join(dirname(etcdBinary), 'etcdctl');
  return (await isExecutable(sibling)) ? sibling : undefined;
}

/**
 * An absolute path for a program name or path. Children run with a clean environment (no PATH),
 * so every binary must be resolved before it is spawned.
 */
export async function resolveBinary(nameOrPath: string): Promise<string | undefined> {
  if (nameOrPath.includes('/')) return (await isExecutable(nameOrPath)) ? nameOrPath : undefined;
  return which(nameOrPath);
}

async function findBinary(name: string, knownPaths: string[]): Promise<string | undefined> {
  const onPath = await which(name);
  if (onPath) return onPath;
  for (const path of knownPaths) if (await isExecutable(path)) return path;
  return undefined;
}

async function which(name: string): Promise<string | undefined> {
  const result = await runCommand('which', [name], { timeoutMs: 2000 });
  const path = result.stdout.split('\n')[0]?.trim();
  return result.code === 0 && path ? path : undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const versions = new Map<string, Promise<string | undefined>>();

/** `etcd --version`'s `etcd Version: 3.5.30`, once per binary. */
export function etcdVersionOf(etcdBinary: string): Promise<string | undefined> {
  let version = versions.get(etcdBinary);
  if (!version) {
    version = runCommand(etcdBinary, ['--version'], { timeoutMs: 10_000 }).then(
      (r) => /^etcd Version: (\S+)/m.exec(r.stdout)?.[1],
      () => undefined,
    );
    versions.set(etcdBinary, version);
  }
  return version;
}

/**
 * A lane that says which etcd it tests (scripts/test.sh sets ETCD_DOCTOR_LAB_ETCD to `3.4` or
 * `3.5`) gets that etcd or an error: a PATH that lost the unpacked 3.5 must not pass as a 3.5 run.
 */
export async function checkLaneVersion(
  etcdBinary: string,
  expected = process.env.ETCD_DOCTOR_LAB_ETCD,
): Promise<void> {
  if (!expected) return;
  const version = await etcdVersionOf(etcdBinary);
  if (version !== expected && !version?.startsWith(`${expected}.`))
    throw new Error(
      `this run tests etcd ${expected}, but ${etcdBinary} is etcd ${version ?? 'of an unknown version'}`,
    );
}
