import { readFile } from 'node:fs/promises';
import { isCollection, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { EtcdDoctorError } from '../errors.js';
import { closest } from '../suggest.js';
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

/**
 * One line that names the bad field: `clusters[1].etcd.endpoints[0]: not a URL`. An unknown field
 * comes first (a misspelt `clusterz:` is why `clusters` is missing), with the field it most likely
 * meant when `schema` is given: `unknown field "metricsUrl" (did you mean "metricsUrls"?)`.
 */
export function formatZodError(error: z.ZodError, schema?: z.ZodType): string {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0];
  if (!issue) return 'invalid';
  const path = formatIssuePath(issue.path);
  const message = issueMessage(issue, schema);
  return path ? `${path}: ${message}` : message;
}

/** The field names a strict object schema allows at `path` (through lists, optionals and defaults). */
export function knownKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let node = schema as unknown as { _zod: { def: Record<string, unknown> } } | undefined;
  const unwrap = () => {
    for (let i = 0; i < 8 && node; i++) {
      const def = node._zod.def;
      if (
        def.type === 'optional' ||
        def.type === 'default' ||
        def.type === 'nullable' ||
        def.type === 'prefault'
      )
        node = def.innerType as typeof node;
      else if (def.type === 'pipe') node = def.in as typeof node;
      else return;
    }
  };
  for (const key of path) {
    unwrap();
    const def = node?._zod.def;
    if (def?.type === 'array' && typeof key === 'number') node = def.element as typeof node;
    else if (def?.type === 'object') node = (def.shape as Record<string, typeof node>)[String(key)];
    else return [];
  }
  unwrap();
  const def = node?._zod.def;
  return def?.type === 'object' ? Object.keys(def.shape as object) : [];
}

function issueMessage(issue: z.core.$ZodIssue, schema?: z.ZodType): string {
  if (issue.code === 'unrecognized_keys') {
    const known = schema ? knownKeysAt(schema, issue.path) : [];
    const named = issue.keys.map((key) => {
      const meant = closest(key, known);
      return meant ? `"${key}" (did you mean "${meant}"?)` : `"${key}"`;
    });
    return `unknown field ${named.join(', ')}`;
  }
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
  if (!parsed.success)
    return { ok: false, error: `${source}: ${formatZodError(parsed.error, configFileSchema)}` };
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
