import { describe, expect, it } from '@jest/globals';
import { parseConfigText } from '../../../src/config/load-config.js';

const withBackups = (backups: string, kubernetes = '') => `
clusters:
  - name: prod
    etcd: { endpoints: [http://127.0.0.1:2379] }
${kubernetes}    backups: ${backups}
`;

describe('clusters[].backups', () => {
  it('fills maxAgeHours 24 and pattern *.db', () => {
    const parsed = parseConfigText(withBackups('{ dir: /var/backups/etcd }'), 'c.yaml');
    expect(parsed.ok && parsed.value.clusters[0]?.backups).toEqual({
      dir: '/var/backups/etcd',
      maxAgeHours: 24,
      pattern: '*.db',
    });
  });

  it('without dir it reads the backup jobs, which needs kubernetes', () => {
    expect(parseConfigText(withBackups('{ maxAgeHours: 12 }'), 'c.yaml')).toEqual({
      ok: false,
      error:
        'c.yaml: clusters[0].backups.dir: is missing (name the directory that holds the snapshots, or set kubernetes to read the backup CronJobs)',
    });
    const kube = '    kubernetes: { kubeconfig: /etc/kube/admin.conf }\n';
    expect(parseConfigText(withBackups('{ maxAgeHours: 12 }', kube), 'c.yaml').ok).toBe(true);
  });

  it.each([
    ['{ dir: backups }', 'clusters[0].backups.dir: must be an absolute path (a mounted volume)'],
    ['{ dir: /b, maxAgeHours: 0 }', 'clusters[0].backups.maxAgeHours: must be more than 0 (hours)'],
    ['{ dir: /b, maxAgeHours: "a day" }', 'clusters[0].backups.maxAgeHours: must be a number'],
    [
      '{ dir: /b, pattern: "snaps/*.db" }',
      'clusters[0].backups.pattern: must be a file name pattern such as *.db (no directory: set dir)',
    ],
    ['{ dir: /b, keep: 3 }', 'clusters[0].backups: unknown field "keep"'],
  ])('%s: one line naming the field', (backups, error) => {
    expect(parseConfigText(withBackups(backups), 'c.yaml')).toEqual({ ok: false, error: `c.yaml: ${error}` });
  });
});
