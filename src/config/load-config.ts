import { readFile } from 'node:fs/promises';
import { isCollection, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { EtcdDoctorError } from '../errors.js';
import { type Env, envSchema } from './env.js';
import { type ClusterConfig, type ConfigFile, configFileSchema } from './schema.js';

export const DEFAULT_CONFIG_PATH = './etcd-doctor.yaml';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** `clusters[1].etcd.endpoints[0]` from zod's path array. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, '');
}

/** One line that names the bad field: `clusters[1].etcd.endpoints[0]: not a URL`. */
export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = formatIssuePath(issue.path);
  return path ? `${path}: ${issueMessage(issue)}` : issueMessage(issue);
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field "${issue.keys.join('", "')}"`;
  if (issue.code === 'invalid_type') {
    if (/received undefined/.test(issue.message)) return 'is missing';
    const expected =
      issue.expected === 'array'
        ? 'a list'
        : issue.expected === 'object'
          ? 'a mapping'
          : `a ${issue.expected}`;
    return `must be ${expected}`;
  }
  return issue.message;
}

export function parseConfigText(text: string, source: string): ParseResult<ConfigFile> {
  let raw: unknown;
  try {
    const doc = parseDocument(text);
    const [error] = doc.errors;
    if (error) throw error;
    // A mapping or list as a key (`{{ .Values.x }}`, a Helm template left unrendered) has no JS
    // form: yaml would stringify it with a warning on stderr. Say what it is instead.
    if (hasCollectionKey(doc))
      return {
        ok: false,
        error: `${source}: a key is itself a mapping or a list (an unrendered template such as {{ .Values }}?); render the template first`,
      };
    raw = doc.toJS();
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { ok: false, error: `${source}: not valid YAML (${reason})` };
  }
  const parsed = configFileSchema.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, error: `${source}: ${formatZodError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}

function hasCollectionKey(doc: ReturnType<typeof parseDocument>): boolean {
  let found = false;
  visit(doc, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

export function parseEnv(env: Record<string, string | undefined>): ParseResult<Env> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) return { ok: false, error: `environment: ${formatZodError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}

export interface LoadConfigDeps {
  readFile: (path: string) => Promise<string>;
}

/** Reads and validates the clusters file. Throws `config_invalid` with a one-line message. */
export async function loadConfig(path: string, deps: LoadConfigDeps): Promise<ConfigFile> {
  let text: string;
  try {
    text = await deps.readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : (code ?? 'cannot be read');
    throw new EtcdDoctorError(
      'config_invalid',
      `${path}: ${reason} (pass --config FILE or set ETCD_DOCTOR_CONFIG)`,
      { cause: err },
    );
  }
  const parsed = parseConfigText(text, path);
  if (!parsed.ok) throw new EtcdDoctorError('config_invalid', parsed.error);
  return parsed.value;
}

/**
 * The clusters file a command names: `--config`, else $ETCD_DOCTOR_CONFIG, else ./etcd-doctor.yaml.
 * The one place the CLI's commands (and `etcd-doctor mcp`) load it.
 */
export function loadConfigFor(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): Promise<ConfigFile> {
  const path = flag ?? env.ETCD_DOCTOR_CONFIG ?? DEFAULT_CONFIG_PATH;
  return loadConfig(path, { readFile: (p) => readFile(p, 'utf8') });
}

/** The named cluster of the config, or a cluster_unknown error that lists the known ones. */
export function findCluster(config: Pick<ConfigFile, 'clusters'>, name: string): ClusterConfig {
  const found = config.clusters.find((c) => c.name === name);
  if (found) return found;
  throw new EtcdDoctorError(
    'cluster_unknown',
    `unknown cluster "${name}"; known clusters: ${config.clusters.map((c) => c.name).join(', ')}`,
  );
}

/** The process env parsed (env.ts), or a config_invalid error that says what is wrong. */
export function requireEnv(env: Record<string, string | undefined>): Env {
  const parsed = parseEnv(env);
  if (!parsed.ok) throw new EtcdDoctorError('config_invalid', parsed.error);
  return parsed.value;
}
