import { describe, expect, it } from '@jest/globals';
import { loadConfig, parseConfigText, parseEnv } from '../../../src/config/load-config.js';
import { describeRedisTarget, redisTargetFromEnv } from '../../../src/config/redis-target.js';
import { EtcdDoctorError } from '../../../src/errors.js';

const good = `
clusters:
  - name: prod
    etcd:
      endpoints: [https://127.20.0.11:2379, https://127.20.0.12:2379]
      metricsUrls: [http://127.20.0.11:2381, http://127.20.0.12:2381]
      tls: { caFile: /etc/etcd/ca.crt, certFile: /etc/etcd/client.crt, keyFile: /etc/etcd/client.key }
    kubernetes: { kubeconfig: /etc/kube/admin.conf, context: prod }
    slack: { channel: C0123, allowedChannels: [C0123] }
    remediation: { responders: [U012AB3CD, S0614TZR7], dryRun: true }
    tickets: { kind: jira, url: https://jira.example.test/, credentialEnv: JIRA_TOKEN }
  - name: staging
    etcd:
      endpoints: [http://127.0.0.1:2379]
`;

describe('parseConfigText', () => {
  it('accepts the documented shape and fills probe defaults', () => {
    const parsed = parseConfigText(good, 'etcd-doctor.yaml');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
    expect(parsed.value.probes).toEqual({ timeoutMs: 3000, metricsWindowMs: 3000 });
  });

  it('names the path of a bad endpoint in one line', () => {
    const text = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379] }\n  - name: b\n    etcd: { endpoints: [not-a-url] }\n`;
    expect(parseConfigText(text, 'f.yaml')).toEqual({
      ok: false,
      error: 'f.yaml: clusters[1].etcd.endpoints[0]: not a URL',
    });
  });

  it('takes offline.maxFileBytes and mcp.analyzeRoots, and names a relative root', () => {
    const base = 'clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379] }\n';
    const parsed = parseConfigText(
      `${base}offline: { maxFileBytes: 1000000 }\nmcp: { analyzeRoots: [/srv/gathers] }\n`,
      'f.yaml',
    );
    expect(parsed.ok && [parsed.value.offline, parsed.value.mcp]).toEqual([
      { maxFileBytes: 1000000 },
      { analyzeRoots: ['/srv/gathers'] },
    ]);
    expect(parseConfigText(`${base}mcp: { analyzeRoots: [gathers] }\n`, 'f.yaml')).toEqual({
      ok: false,
      error: 'f.yaml: mcp.analyzeRoots[0]: must be an absolute path',
    });
  });

  it('names an unknown field, and the field it most likely meant', () => {
    const text = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379], endpoint: x }\n`;
    const parsed = parseConfigText(text, 'f.yaml');
    expect(parsed).toEqual({
      ok: false,
      error: 'f.yaml: clusters[0].etcd: unknown field "endpoint" (did you mean "endpoints"?)',
    });
    const metrics = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379], metricsUrl: [http://127.0.0.1:2381] }\n`;
    expect(parseConfigText(metrics, 'f.yaml')).toEqual({
      ok: false,
      error: 'f.yaml: clusters[0].etcd: unknown field "metricsUrl" (did you mean "metricsUrls"?)',
    });
    const far = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379] }\nzzzz: 1\n`;
    expect(parseConfigText(far, 'f.yaml')).toEqual({ ok: false, error: 'f.yaml: unknown field "zzzz"' });
  });

  it('a misspelt top-level key is named first, not only the missing key it hides (issue 42)', () => {
    const text = `clusterz:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379] }\n`;
    expect(parseConfigText(text, 'f.yaml')).toEqual({
      ok: false,
      error: 'f.yaml: unknown field "clusterz" (did you mean "clusters"?)',
    });
  });

  it('rejects a metricsUrls list of the wrong length', () => {
    const text = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379], metricsUrls: [http://127.0.0.1:1, http://127.0.0.1:2] }\n`;
    const parsed = parseConfigText(text, 'f.yaml');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.error).toMatch(/^f\.yaml: clusters\[0\]\.etcd\.metricsUrls: needs one URL per endpoint/);
  });

  it('rejects duplicate names, bad names, bad responders and broken YAML', () => {
    const dup = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:1] }\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2] }\n`;
    expect(parseConfigText(dup, 'f')).toEqual({
      ok: false,
      error: 'f: clusters[1].name: duplicate cluster name "a"',
    });
    const upper = `clusters:\n  - name: Prod\n    etcd: { endpoints: [http://127.0.0.1:1] }\n`;
    expect(parseConfigText(upper, 'f')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^f: clusters\[0\]\.name: must be a lowercase word/),
    });
    const responder = `clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:1] }\n    remediation: { responders: [alice] }\n`;
    expect(parseConfigText(responder, 'f')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/remediation\.responders\[0\]: must be a Slack user id/),
    });
    expect(parseConfigText('clusters: [', 'f')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^f: not valid YAML/),
    });
    expect(parseConfigText('', 'f')).toEqual({ ok: false, error: 'f: clusters: is missing' });
    // A Helm template left unrendered: a key that is a mapping, said in one line, with no yaml warning.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      expect(parseConfigText('clusters:\n  - {{ .Values.cluster }}\n', 'f')).toEqual({
        ok: false,
        error:
          'f: a key is itself a mapping or a list (an unrendered template such as {{ .Values }}?); render the template first',
      });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
    expect(parseConfigText('clusters: 3', 'f')).toEqual({ ok: false, error: 'f: clusters: must be a list' });
  });
  it('names a field that remediation or tickets cannot use safely, in one line', () => {
    const with_ = (extra: string) =>
      parseConfigText(`clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:1] }\n${extra}`, 'f');
    const expectError = (extra: string, pattern: RegExp) =>
      expect(with_(extra)).toEqual({ ok: false, error: expect.stringMatching(pattern) });
    // Images by digest only: a tag can be moved under a running deployment.
    expectError(
      '    remediation: { helperImage: "busybox:1.36" }\n',
      /^f: clusters\[0\]\.remediation\.helperImage: must be pinned by digest/,
    );
    expect(
      with_(`    remediation: { diskBenchmarkImage: "example.org/fio@sha256:${'0'.repeat(64)}" }\n`).ok,
    ).toBe(true);
    // Item 11: a ticket credential is never one of etcd-doctor's own secrets, and never sent in clear.
    for (const name of ['SLACK_BOT_TOKEN', 'REDIS_URL', 'ALERTMANAGER_TOKEN'])
      expectError(
        `    tickets: { kind: webhook, url: "https://t.example/hook", credentialEnv: ${name} }\n`,
        /^f: clusters\[0\]\.tickets\.credentialEnv: must not name one of etcd-doctor's own secrets \(SLACK_\*, REDIS_\*/,
      );
    expectError(
      '    tickets: { kind: jira, url: "http://jira.example.com" }\n',
      /^f: clusters\[0\]\.tickets\.url: must be https: the ticket credential would cross the network in clear$/,
    );
    expect(
      with_('    tickets: { kind: jira, url: "https://jira.example.com", credentialEnv: JIRA_TOKEN }\n').ok,
    ).toBe(true);
    // Item 8: channel IDs only; a name can be renamed, or reused by another channel.
    expectError(
      '    slack: { allowedChannels: ["#ops"] }\n',
      /^f: clusters\[0\]\.slack\.allowedChannels\[0\]: must be a Slack channel ID such as C0123456789, not a name/,
    );
  });
});

describe('loadConfig', () => {
  it('throws config_invalid naming a missing file and how to pass another', async () => {
    const err = await loadConfig('/nope.yaml', {
      readFile: async () => {
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EtcdDoctorError);
    expect((err as EtcdDoctorError).code).toBe('config_invalid');
    expect((err as Error).message).toBe(
      '/nope.yaml: file not found (pass --config FILE or set ETCD_DOCTOR_CONFIG)',
    );
  });
});

describe('parseEnv', () => {
  it('defaults REDIS_URL and PORT and hides secrets', () => {
    const parsed = parseEnv({ SLACK_BOT_TOKEN: 'xoxb-secret-value' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(parsed.value.PORT).toBe(3000);
    expect(JSON.stringify(parsed.value)).not.toContain('xoxb-secret-value');
    expect(String(parsed.value.SLACK_BOT_TOKEN)).toBe('[redacted]');
    expect(parsed.value.SLACK_BOT_TOKEN?.reveal()).toBe('xoxb-secret-value');
  });

  it('names a bad variable', () => {
    expect(parseEnv({ PORT: 'eighty' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^environment: PORT: /),
    });
  });
  it('refuses a bearer token shorter than 32 characters, and says how to make one', () => {
    for (const name of ['MCP_TOKEN', 'ALERTMANAGER_TOKEN']) {
      expect(parseEnv({ [name]: 'x' })).toEqual({
        ok: false,
        error: `environment: ${name}: must be at least 32 characters (openssl rand -hex 32)`,
      });
      expect(parseEnv({ [name]: 'a'.repeat(31) }).ok).toBe(false);
      expect(parseEnv({ [name]: 'a'.repeat(32) }).ok).toBe(true);
    }
  });

  it('takes REDIS_SENTINELS with REDIS_SENTINEL_NAME over REDIS_URL, passwords hidden', () => {
    const parsed = parseEnv({
      REDIS_URL: 'redis://127.0.0.1:6380',
      REDIS_SENTINELS: '127.0.0.1:26379, 127.0.0.2:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_PASSWORD: 'hunter2',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const target = redisTargetFromEnv(parsed.value);
    expect(target).toMatchObject({
      name: 'mymaster',
      sentinels: [
        { host: '127.0.0.1', port: 26379 },
        { host: '127.0.0.2', port: 26380 },
      ],
    });
    expect(JSON.stringify(target)).not.toMatch(/hunter2|sentinel-secret/);
    expect(describeRedisTarget(target)).toBe(
      'Sentinel master mymaster (sentinels 127.0.0.1:26379,127.0.0.2:26380)',
    );
    expect(redisTargetFromEnv({ REDIS_URL: 'redis://127.0.0.1:6380' })).toBe('redis://127.0.0.1:6380');
  });

  it('says what to write for a bad REDIS_SENTINELS, or one without REDIS_SENTINEL_NAME', () => {
    expect(parseEnv({ REDIS_SENTINELS: '127.0.0.1' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /REDIS_SENTINELS: "127.0.0.1" is not host:port \(write host:port,host:port,…\)/,
      ),
    });
    expect(parseEnv({ REDIS_SENTINELS: '127.0.0.1:26379' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/REDIS_SENTINEL_NAME: REDIS_SENTINELS needs REDIS_SENTINEL_NAME/),
    });
  });

  it('takes REDIS_CLUSTER_NODES over REDIS_URL, with REDIS_PASSWORD hidden', () => {
    const parsed = parseEnv({
      REDIS_URL: 'redis://127.0.0.1:6380',
      REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001, 127.0.0.1:7002',
      REDIS_PASSWORD: 'hunter2',
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const target = redisTargetFromEnv(parsed.value);
    expect(target).toMatchObject({
      nodes: [7000, 7001, 7002].map((port) => ({ host: '127.0.0.1', port })),
    });
    expect(JSON.stringify(target)).not.toMatch(/hunter2/);
    expect(describeRedisTarget(target)).toBe(
      'Redis Cluster (nodes 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002)',
    );
  });

  it('says what to write for a bad REDIS_CLUSTER_NODES, or one beside REDIS_SENTINELS', () => {
    expect(parseEnv({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,redis-1' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/REDIS_CLUSTER_NODES: "redis-1" is not host:port/),
    });
    expect(
      parseEnv({
        REDIS_CLUSTER_NODES: '127.0.0.1:7000',
        REDIS_SENTINELS: '127.0.0.1:26379',
        REDIS_SENTINEL_NAME: 'mymaster',
      }),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /REDIS_CLUSTER_NODES: set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both/,
      ),
    });
  });
});
